/** Tool calls: submit (optionally waiting for the result) and the dry-run decision. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { passed } from "../../call-path.js";
import { isTerminal } from "../../contracts/job.js";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import {
  bearer,
  Decision,
  ErrorBody,
  errorResponses,
  JobEnvelope,
  json,
  jsonBody,
  rateLimitedResponse,
  readOnlyPost,
  tooLargeResponse,
  unavailableResponse,
} from "../schemas.js";

const Sid = z.object({ sid: z.string() });
const Call = z
  .object({
    tool: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
    idempotencyKey: z.string().min(1).max(200).optional(),
  })
  .openapi("Call", {
    example: { tool: "Bash", input: { command: "ls -la /workspace" }, idempotencyKey: "step-7" },
  });

const postCall = createRoute({
  method: "post",
  path: "/v1/sessions/{sid}/calls",
  operationId: "submitCall",
  summary: "Submit a tool call",
  security: bearer,
  request: {
    params: Sid,
    query: z.object({ wait: z.coerce.number().min(0).max(60).optional() }),
    body: jsonBody(Call),
  },
  responses: {
    200: json(JobEnvelope, "finished within the wait"),
    202: json(
      JobEnvelope,
      "accepted; not finished yet (queued, running, awaiting_approval, awaiting_external)",
    ),
    ...errorResponses,
    409: json(ErrorBody, "CONFLICT: the idempotency key was already used with a different body"),
    ...tooLargeResponse,
    ...rateLimitedResponse,
    ...unavailableResponse,
  },
});

const postDecision = createRoute({
  method: "post",
  path: "/v1/sessions/{sid}/decisions",
  operationId: "decideCall",
  ...readOnlyPost,
  summary: "Dry-run the policy for a call",
  security: bearer,
  description: "What the policy would decide for this call now; nothing is run or recorded.",
  request: { params: Sid, body: jsonBody(Call.omit({ idempotencyKey: true })) },
  responses: {
    200: json(z.object({ decision: Decision }), "what would be decided"),
    ...errorResponses,
    ...tooLargeResponse,
  },
});

export function callRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(postCall, async (c) => {
    passed("route");
    const { sid } = c.req.valid("param");
    const { wait = 0 } = c.req.valid("query");
    let { job } = await deps.port.submitCall(c.get("principal"), sid, c.req.valid("json"), {
      wait: wait > 0,
      traceId: c.get("traceId"),
    });
    if (wait > 0 && (job.status === "queued" || job.status === "running")) {
      job = await deps.port.waitForJob(job.id, wait * 1000, job);
    }
    return isTerminal(job.status) ? c.json({ job }, 200) : c.json({ job }, 202);
  });
  app.openapi(postDecision, async (c) => {
    const decision = await deps.port.dryRunDecision(
      c.get("principal"),
      c.req.valid("param").sid,
      c.req.valid("json"),
    );
    return c.json({ decision }, 200);
  });
}
