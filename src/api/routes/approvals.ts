/** The approvals inbox: jobs waiting for a tenant admin's answer, as a page and as an SSE stream. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
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
  operationId: "listApprovals",
  summary: "List pending approvals",
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

const events = createRoute({
  method: "get",
  path: "/v1/approvals/events",
  operationId: "streamApprovals",
  summary: "Stream approvals (SSE)",
  security: bearer,
  description:
    "SSE (tenant_admin). At connect, one `approval` event per job already waiting (oldest first), then " +
    "one each time a job of the tenant enters `awaiting_approval`; data: an ApprovalItem. A `resolved` " +
    "event `{jobId, status}` when an announced job leaves it (approved → `queued`, denied, expired, " +
    "cancelled). Starts with `retry: 3000`; `: keep-alive` comments while idle. The platform admin names " +
    "the tenant with `tenantId`.",
  request: { query: z.object({ tenantId: TenantFilter }) },
  responses: {
    200: { description: "text/event-stream", content: { "text/event-stream": { schema: z.string() } } },
    ...errorResponses,
  },
});

/** How long a client waits before reconnecting (the SSE `retry:` field), in ms. */
const RETRY_MS = 3000;

export function approvalRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(list, async (c) =>
    c.json(await deps.port.listApprovals(c.get("principal"), c.req.valid("query")), 200),
  );
  app.openapi(events, async (c) => {
    const principal = c.get("principal");
    const follower = await deps.port.followApprovals(principal, c.req.valid("query"));
    const untrack = deps.port.keyStreams.track(principal.keyId, () => follower.close());
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => follower.close());
      try {
        await stream.write(`retry: ${RETRY_MS}\n\n`);
        for await (const e of follower) {
          if (e.type === "ping") await stream.write(": keep-alive\n\n");
          else await stream.writeSSE({ event: e.type, data: JSON.stringify(e.data) });
        }
      } finally {
        untrack();
      }
    });
  });
}
