/**
 * The OpenAPI document as generated tools read it: every operation named, summarised, tagged and
 * secured; the SSE events typed; `Last-Event-ID` documented. Redocly lints the same document in
 * `npm run check` (scripts/openapi-lint.sh).
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/api/context.js";
import { incompleteOperations, openApiDocument, tagOf } from "../../src/api/openapi-document.js";
import { buildOpenApiDocument, documentationApp } from "../../src/cli/openapi.js";

const doc = buildOpenApiDocument();
type Op = {
  operationId?: string;
  security?: unknown[];
  tags?: string[];
  parameters?: { name: string; in: string }[];
};
const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item ?? {}).map(([method, op]) => ({ path, method, op: op as Op })),
);

describe("the generated OpenAPI document", () => {
  it("names, summarises and tags every operation, with unique verb-like operationIds", () => {
    expect(operations.length).toBeGreaterThan(30);
    expect(incompleteOperations(doc)).toEqual([]);
    const ids = operations.map((o) => o.op.operationId!);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+[A-Z][A-Za-z]*$/);
    expect(doc.paths?.["/v1/sessions"]?.post?.operationId).toBe("createSession");
    expect(doc.paths?.["/v1/sessions/{sid}/calls"]?.post?.operationId).toBe("submitCall");
    expect(doc.paths?.["/v1/jobs/{jid}"]?.get?.operationId).toBe("getJob");
    expect(doc.servers?.length).toBeGreaterThan(0);
    const declared = new Set((doc.tags ?? []).map((t) => t.name));
    for (const o of operations) for (const t of o.op.tags ?? []) expect(declared).toContain(t);
  });

  it("secures /v1 with the bearer key and leaves health, readiness and metrics open", () => {
    for (const o of operations) {
      const open = ["/healthz", "/readyz", "/metrics"].includes(o.path);
      expect(o.op.security, `${o.method} ${o.path}`).toEqual(open ? [] : [{ bearer: [] }]);
    }
  });

  it("types the SSE events and documents Last-Event-ID", () => {
    const events = doc.paths?.["/v1/jobs/{jid}/events"]?.get as Op & {
      responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }>;
    };
    expect(events.parameters).toContainEqual(
      expect.objectContaining({ name: "Last-Event-ID", in: "header" }),
    );
    expect(events.responses["200"]!.content["text/event-stream"]!.schema.$ref).toBe(
      "#/components/schemas/JobEvent",
    );
    const schemas = doc.components?.schemas ?? {};
    for (const name of ["JobStatusEvent", "JobChunkEvent", "JobResultEvent"])
      expect(schemas[name]).toBeDefined();
    expect(JSON.stringify(schemas.JobEvent)).toContain("JobResultEvent");
  });

  it("reports a new route that misses its operationId or summary", () => {
    const app = new OpenAPIHono<AppEnv>();
    const bare = createRoute({
      method: "get",
      path: "/v1/widgets",
      responses: { 200: { description: "ok", content: { "application/json": { schema: z.object({}) } } } },
    });
    app.openapi(bare, (c) => c.json({}, 200));
    const d = openApiDocument(app);
    expect(incompleteOperations(d)).toEqual(["GET /v1/widgets"]);
    // Tags and security are filled in centrally all the same.
    expect(d.paths?.["/v1/widgets"]?.get?.tags).toEqual(["Widgets"]);
    expect(d.paths?.["/v1/widgets"]?.get?.security).toEqual([{ bearer: [] }]);
  });

  it("gives every operation its 4xx answers in the error shape (Redocly's operation-4xx-response)", () => {
    type Responses = Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
    const without = operations.flatMap(({ path, method, op }) => {
      const responses = (op as Op & { responses: Responses }).responses;
      const errors = Object.entries(responses).filter(([code]) => /^4/.test(code));
      const typed = errors.some(([, r]) =>
        JSON.stringify(r.content ?? {}).includes("#/components/schemas/Error"),
      );
      return typed ? [] : [`${method.toUpperCase()} ${path}`];
    });
    expect(without).toEqual([]);
  });

  it("documents the 503 with its Retry-After on every operation that takes a key", () => {
    type Responses = Record<string, { headers?: Record<string, unknown> }>;
    const keyed = operations.filter(({ op }) => (op as { security?: unknown[] }).security?.length);
    expect(keyed.length).toBeGreaterThan(40);
    const without = keyed.flatMap(({ path, method, op }) => {
      const r503 = (op as Op & { responses: Responses }).responses["503"];
      return r503?.headers?.["Retry-After"] ? [] : [`${method.toUpperCase()} ${path}`];
    });
    expect(without).toEqual([]);
  });

  it("answers another method on an open path with the documented 404 error body", async () => {
    const app = documentationApp();
    for (const path of ["/healthz", "/readyz", "/metrics"]) {
      const res = await app.request(path, { method: "POST" });
      const body = (await res.json()) as { error: { code: string } };
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(body.error.code).toBe("NOT_FOUND");
    }
  });

  it("derives tags from paths", () => {
    expect(tagOf("/v1/sessions/{sid}/calls")).toBe("Calls");
    expect(tagOf("/v1/sessions/{sid}")).toBe("Sessions");
    expect(tagOf("/v1/tenants/{tid}/mcp-servers/{name}/tools")).toBe("Tools");
    expect(tagOf("/v1/tenants/{tid}/webhooks")).toBe("Webhooks");
    expect(tagOf("/metrics")).toBe("System");
  });
});
