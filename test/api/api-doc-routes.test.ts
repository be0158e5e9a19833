/**
 * newcomer24: docs/api.md and the OpenAPI document name the same routes. Every operation of the
 * document is in api.md, and every route api.md names is in the document, but for the few served
 * outside it on purpose (the console's cookie sign-in, the document and its page, and the session
 * MCP endpoint's GET and DELETE, which the POST operation describes).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { buildOpenApiDocument } from "../../src/cli/openapi.js";

const METHODS = ["get", "post", "put", "patch", "delete"];
const OUTSIDE_THE_DOCUMENT = new Set([
  "GET /openapi.json",
  "GET /docs",
  "GET /console/session",
  "POST /console/session",
  "DELETE /console/session",
  "GET /v1/sessions/{sid}/mcp",
  "DELETE /v1/sessions/{sid}/mcp",
]);

/** `GET /v1/x`, and the shared form `` `GET`/`POST`/`DELETE /v1/x` ``, as "METHOD path". */
function routesNamedIn(markdown: string): Set<string> {
  const out = new Set<string>();
  const re = /((?:`?(?:GET|POST|PUT|PATCH|DELETE)`?\/)*`?(?:GET|POST|PUT|PATCH|DELETE))`? +`?(\/[^\s`?)]*)/g;
  for (const m of markdown.matchAll(re)) {
    for (const method of m[1]!.match(/GET|POST|PUT|PATCH|DELETE/g) ?? []) out.add(`${method} ${m[2]}`);
  }
  return out;
}

it("docs/api.md names every route of the OpenAPI document, and the document every route api.md names", () => {
  const doc = buildOpenApiDocument();
  const inDocument = new Set(
    Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item ?? {})
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    ),
  );
  const inDocs = routesNamedIn(readFileSync(join(import.meta.dirname, "../../docs/api.md"), "utf8"));
  expect([...inDocument].filter((r) => !inDocs.has(r))).toEqual([]);
  expect([...inDocs].filter((r) => !inDocument.has(r) && !OUTSIDE_THE_DOCUMENT.has(r))).toEqual([]);
});

it("reads both forms of a route in the tables", () => {
  expect([
    ...routesNamedIn("| `GET /v1/jobs/{jid}` | x\n| `GET`/`POST`/`DELETE /v1/sessions/{sid}/mcp` |"),
  ]).toEqual([
    "GET /v1/jobs/{jid}",
    "GET /v1/sessions/{sid}/mcp",
    "POST /v1/sessions/{sid}/mcp",
    "DELETE /v1/sessions/{sid}/mcp",
  ]);
});
