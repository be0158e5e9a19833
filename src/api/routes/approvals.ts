/** The approvals inbox: jobs waiting for a tenant admin's answer. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses, Job, json, PageParams, page, TenantFilter } from "../schemas.js";

export const ApprovalItem = z
  .object({
    job: Job,
    decision: z.object({
      message: z.string().openapi({ description: "what the call wants to do, for the approver" }),
      reason: z.string().nullable(),
      suggestions: z.array(z.string()).openapi({ description: "allow rules that `remember` may add" }),
    }),
    expiresAt: z.string().nullable().openapi({ description: "when it is denied unanswered" }),
  })
  .openapi("ApprovalItem");

const list = createRoute({
  method: "get",
  path: "/v1/approvals",
  security: bearer,
  description:
    "Jobs of the tenant in `awaiting_approval` that have not expired, newest first " +
    "(tenant_admin). Answer one with `POST /v1/jobs/{jid}/approval`.",
  request: { query: PageParams.extend({ sessionId: z.string().optional(), tenantId: TenantFilter }) },
  responses: {
    200: json(page(ApprovalItem).openapi("ApprovalPage"), "a page of pending approvals"),
    ...errorResponses,
  },
});

export function approvalRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(list, (c) => c.json(deps.port.listApprovals(c.get("principal"), c.req.valid("query")), 200));
}
