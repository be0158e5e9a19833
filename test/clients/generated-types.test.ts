/**
 * The TypeScript client's types are generated from the OpenAPI document (`npm run client:build`);
 * the committed copy must be what the routes generate now, so a changed route shows up here.
 */
import { readFileSync } from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";
import { expect, it } from "vitest";
import { buildOpenApiDocument } from "../../src/cli/openapi.js";

it("clients/typescript/src/generated/openapi.ts matches the routes (else: npm run client:build)", async () => {
  const fresh = astToString(
    await openapiTS(JSON.parse(JSON.stringify(buildOpenApiDocument())), { silent: true }),
  );
  const committed = readFileSync(
    new URL("../../clients/typescript/src/generated/openapi.ts", import.meta.url),
    "utf8",
  );
  expect(committed.endsWith(fresh)).toBe(true);
  expect(fresh).toContain("createSession: {");
  expect(fresh).toContain('JobEvent: components["schemas"]["JobStatusEvent"]');
});
