/** Jobs: read, cancel, answer an approval. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { answerApproval } from "../../service/approval.js";
import { cancelJob, getJob } from "../../service/jobs.js";
import type { ApiDeps } from "../app.js";
import type { AppEnv } from "../context.js";
import { bearer, ErrorBody, errorResponses, JobEnvelope, json, jsonBody } from "../schemas.js";

const Jid = z.object({ jid: z.string() });

const getOne = createRoute({
  method: "get",
  path: "/v1/jobs/{jid}",
  security: bearer,
  request: { params: Jid },
  responses: { 200: json(JobEnvelope, "the job"), ...errorResponses },
});

const cancel = createRoute({
  method: "post",
  path: "/v1/jobs/{jid}/cancel",
  security: bearer,
  request: { params: Jid },
  responses: { 200: json(JobEnvelope, "the job; a running call is being killed"), ...errorResponses },
});

const approval = createRoute({
  method: "post",
  path: "/v1/jobs/{jid}/approval",
  security: bearer,
  request: {
    params: Jid,
    body: jsonBody(z.object({ approve: z.boolean(), remember: z.array(z.string()).optional() })),
  },
  responses: {
    200: json(JobEnvelope, "the job"),
    409: json(ErrorBody, "not awaiting approval (already answered)"),
    ...errorResponses,
  },
});

export function jobRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(getOne, (c) =>
    c.json({ job: getJob(deps, c.get("principal"), c.req.valid("param").jid) }, 200),
  );
  app.openapi(cancel, async (c) => {
    const job = await cancelJob(deps, c.get("principal"), c.req.valid("param").jid);
    return c.json({ job }, 200);
  });
  app.openapi(approval, async (c) => {
    const job = await answerApproval(deps, c.get("principal"), c.req.valid("param").jid, c.req.valid("json"));
    return c.json({ job }, 200);
  });
}
