/** Jobs: list, read, cancel, answer an approval, post an external tool's result. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import {
  bearer,
  conflictResponse,
  errorResponses,
  Job,
  JobEnvelope,
  json,
  jsonBody,
  PageParams,
  page,
  rateLimitedResponse,
  TenantFilter,
  tooLargeResponse,
} from "../schemas.js";

const Jid = z.object({ jid: z.string() });

const list = createRoute({
  method: "get",
  path: "/v1/jobs",
  operationId: "listJobs",
  summary: "List jobs",
  security: bearer,
  description:
    "The caller's tenant's jobs, newest first (by `createdAt`, then `id`). Filters combine: " +
    "`status` may repeat or be comma-separated (any of them, e.g. `awaiting_approval`); " +
    "`since` (inclusive) and `until` (exclusive) bound `createdAt`.",
  request: {
    query: PageParams.extend({
      sessionId: z.string().optional(),
      status: z
        .union([z.string(), z.array(z.string())])
        .optional()
        .openapi({ description: "one or more statuses, repeated or comma-separated" }),
      tool: z.string().optional(),
      since: z.string().optional().openapi({ description: "ISO-8601 date-time: created at or after" }),
      until: z.string().optional().openapi({ description: "ISO-8601 date-time: created before" }),
      tenantId: TenantFilter,
    }),
  },
  responses: { 200: json(page(Job).openapi("JobPage"), "a page of jobs"), ...errorResponses },
});

const getOne = createRoute({
  method: "get",
  path: "/v1/jobs/{jid}",
  operationId: "getJob",
  summary: "Read a job",
  security: bearer,
  description:
    "A final job is kept `JOB_RETENTION_DAYS` (default 30) after it finished, then deleted: its id is " +
    "then a 404 `NOT_FOUND` whose message says how long jobs are kept. A job not final is never deleted.",
  request: { params: Jid },
  responses: { 200: json(JobEnvelope, "the job"), ...errorResponses },
});

const cancel = createRoute({
  method: "post",
  path: "/v1/jobs/{jid}/cancel",
  operationId: "cancelJob",
  summary: "Cancel a job",
  security: bearer,
  request: { params: Jid },
  responses: { 200: json(JobEnvelope, "the job; a running call is being killed"), ...errorResponses },
});

const approval = createRoute({
  method: "post",
  path: "/v1/jobs/{jid}/approval",
  operationId: "answerApproval",
  summary: "Approve or deny a held call",
  security: bearer,
  description:
    "Answers an `awaiting_approval` job. tenant_admin always; agent only when the tenant's " +
    "`agentsMayApprove` is on, and then `remember` may hold only the call's suggested rules. " +
    "A second answer, or one after the approval expired, is a 409. An approval that would queue " +
    "the call past the tenant's `maxActiveCalls` is a 429; the job stays pending.",
  request: {
    params: Jid,
    body: jsonBody(
      z.strictObject({
        approve: z.boolean(),
        remember: z
          .array(z.string())
          .max(50)
          .optional()
          .openapi({ description: "allow rules added to the session" }),
      }),
    ),
  },
  responses: {
    200: json(JobEnvelope, "the job"),
    ...conflictResponse,
    ...rateLimitedResponse,
    ...errorResponses,
    ...tooLargeResponse,
  },
});

const ExternalResult = z
  .strictObject({
    content: z.array(z.strictObject({ type: z.literal("text"), text: z.string() })).min(1),
    isError: z.boolean().optional(),
  })
  .openapi("ExternalResult");

const externalResult = createRoute({
  method: "post",
  path: "/v1/jobs/{jid}/external-result",
  operationId: "postExternalResult",
  summary: "Post an external tool's result",
  security: bearer,
  description:
    "The result of an external tool's call: the job (`awaiting_external`) ends succeeded, or failed when `isError`.",
  request: { params: Jid, body: jsonBody(ExternalResult) },
  responses: {
    200: json(JobEnvelope, "the finished job"),
    ...conflictResponse,
    ...errorResponses,
    ...tooLargeResponse,
  },
});

export function jobRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(list, async (c) =>
    c.json(await deps.port.listJobs(c.get("principal"), c.req.valid("query")), 200),
  );
  app.openapi(getOne, async (c) => {
    const { jid } = c.req.valid("param");
    const job = await deps.port.getJob(c.get("principal"), jid);
    // The check on read: an approval past its expiry is shown denied even between sweeps.
    if (job.status !== "awaiting_approval") return c.json({ job }, 200);
    await deps.port.expireIfDue(jid);
    return c.json({ job: await deps.port.getJob(c.get("principal"), jid) }, 200);
  });
  app.openapi(cancel, async (c) => {
    const job = await deps.port.cancelJob(c.get("principal"), c.req.valid("param").jid);
    return c.json({ job }, 200);
  });
  app.openapi(approval, async (c) => {
    const job = await deps.port.answerApproval(
      c.get("principal"),
      c.req.valid("param").jid,
      c.req.valid("json"),
    );
    return c.json({ job }, 200);
  });
  app.openapi(externalResult, async (c) => {
    const body = c.req.valid("json");
    const job = await deps.port.postExternalResult(c.get("principal"), c.req.valid("param").jid, body);
    return c.json({ job }, 200);
  });
}
