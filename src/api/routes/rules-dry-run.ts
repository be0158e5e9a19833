/** `POST /v1/tenants/{tid}/rules/dry-run`: how a proposed rule set would decide the tenant's recent calls. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import {
  bearer,
  errorResponses,
  json,
  jsonBody,
  RuleSetBody,
  readOnlyPost,
  tooLargeResponse,
} from "../schemas.js";

const Face = z.object({
  behavior: z.enum(["allow", "deny", "ask"]),
  reason: z.string().nullable(),
  message: z.string(),
  rule: z.string().optional(),
});

const DryRun = z
  .object({
    checked: z.number().int().describe("recent calls decided again"),
    skipped: z.number().int().describe("recent calls that cannot be decided now (their session ended)"),
    changes: z.array(
      z.object({
        jobId: z.string(),
        sessionId: z.string(),
        tool: z.string(),
        input: z.record(z.string(), z.unknown()),
        createdAt: z.string(),
        before: Face.describe("with the stored rule set"),
        after: Face.describe("with the proposed rule set"),
      }),
    ),
  })
  .openapi("RulesDryRun");

const route = createRoute({
  method: "post",
  path: "/v1/tenants/{tid}/rules/dry-run",
  operationId: "dryRunRules",
  ...readOnlyPost,
  summary: "Re-decide the tenant's recent calls under proposed rules",
  security: bearer,
  description:
    "Decides the tenant's recent calls (newest first, `limit`, default 100) with the stored and the proposed rule set and lists those whose decision would change. Nothing is stored.",
  request: {
    params: z.object({ tid: z.string() }),
    query: z.object({ limit: z.coerce.number().int().min(1).max(500).optional() }),
    body: jsonBody(RuleSetBody),
  },
  responses: { 200: json(DryRun, "the changes"), ...errorResponses, ...tooLargeResponse },
});

export function rulesDryRunRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(route, async (c) => {
    const { limit } = c.req.valid("query");
    const result = await deps.port.dryRunRules(
      c.get("principal"),
      c.req.valid("param").tid,
      c.req.valid("json"),
      limit === undefined ? {} : { limit },
    );
    return c.json(result, 200);
  });
}
