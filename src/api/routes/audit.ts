/** `GET /v1/tenants/{tid}/audit`: decisions and approvals, newest first. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses, json } from "../schemas.js";

const Entry = z.object({
  id: z.string(),
  kind: z.string(),
  sessionId: z.string().nullable(),
  jobId: z.string().nullable(),
  actorKeyId: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});

const route = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/audit",
  operationId: "listAudit",
  summary: "Read the audit log",
  security: bearer,
  request: {
    params: z.object({ tid: z.string() }),
    query: z.object({
      sessionId: z.string().optional(),
      jobId: z.string().optional(),
      since: z.iso.datetime().optional(),
      limit: z.coerce.number().int().min(1).max(1000).optional(),
    }),
  },
  responses: { 200: json(z.object({ entries: z.array(Entry) }), "newest first"), ...errorResponses },
});

export function auditRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(route, async (c) => {
    const entries = await deps.port.listAudit(
      c.get("principal"),
      c.req.valid("param").tid,
      c.req.valid("query"),
    );
    return c.json({ entries }, 200);
  });
}
