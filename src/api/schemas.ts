/** Request and response schemas shared by the routes; they also generate the OpenAPI document. */
import { z } from "@hono/zod-openapi";
import { PERMISSION_MODES, type PermissionMode } from "../permission/types.js";

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
    requestId: z.string(),
  })
  .openapi("Error");

export const Mode = z.enum(PERMISSION_MODES as readonly [PermissionMode, ...PermissionMode[]]);

export const RuleSetBody = z
  .object({ allow: z.array(z.string()), deny: z.array(z.string()), ask: z.array(z.string()) })
  .openapi("RuleSet");

export const Session = z
  .object({
    id: z.string(),
    mode: Mode,
    cwd: z.string(),
    home: z.string(),
    workingDirectories: z.array(z.string()),
    status: z.string(),
    rules: RuleSetBody,
    tools: z.array(z.string()),
    createdAt: z.string(),
    lastUsedAt: z.string(),
  })
  .openapi("Session");

export const Decision = z
  .object({
    behavior: z.enum(["allow", "deny", "ask"]),
    message: z.string(),
    reason: z.string().nullable(),
    rule: z.string().optional(),
    mode: z.string(),
    bypassImmune: z.boolean(),
    suggestions: z.array(z.string()),
    decidedBy: z.enum(["rule", "tool", "mode", "approval"]),
    readOnly: z
      .boolean()
      .optional()
      .openapi({ description: "allowed because it only reads: it ran as the sandbox's read-only identity" }),
  })
  .openapi("Decision");

export const JobAttempt = z
  .object({
    n: z.number().int(),
    worker: z.string(),
    startedAt: z.string(),
    sandbox: z.string().optional().openapi({ description: "the sandbox executor instance it used" }),
    endedAt: z.string().optional(),
    outcome: z.string().optional(),
  })
  .openapi("JobAttempt");

export const Result = z
  .object({
    content: z.array(z.looseObject({ type: z.string() })),
    state: z.enum(["success", "error", "denied", "interrupted"]),
    exitCode: z.number().nullable().optional(),
    truncated: z.boolean().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("Result");

export const JobStatus = z
  .enum([
    "queued",
    "running",
    "succeeded",
    "failed",
    "denied",
    "awaiting_approval",
    "awaiting_external",
    "cancelled",
    "interrupted",
  ])
  .openapi("JobStatus");

export const Job = z
  .object({
    id: z.string(),
    sessionId: z.string(),
    tool: z.string(),
    input: z.record(z.string(), z.unknown()),
    status: JobStatus,
    decision: Decision,
    result: Result.optional(),
    idempotencyKey: z.string().optional(),
    approvedBy: z
      .string()
      .optional()
      .openapi({ description: 'the key id that answered the approval, or "expiry"' }),
    approvalExpiresAt: z
      .string()
      .optional()
      .openapi({ description: "when a pending approval is denied unanswered" }),
    createdAt: z.string(),
    startedAt: z.string().optional(),
    finishedAt: z.string().optional(),
    attempts: z
      .array(JobAttempt)
      .optional()
      .openapi({ description: "each time a worker took the job; more than one after a crash" }),
  })
  .openapi("Job");

export const JobEnvelope = z.object({ job: Job }).openapi("JobEnvelope");

const problem = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorBody } },
});

/** The errors every authenticated endpoint may answer. */
export const errorResponses = {
  400: problem("VALIDATION: invalid request; `details[].path` names the field"),
  401: problem("UNAUTHENTICATED: missing, unknown or revoked key"),
  403: problem("FORBIDDEN: the key's role may not do this"),
  404: problem("NOT_FOUND: no such resource, or another tenant's (indistinguishable)"),
  500: problem("INTERNAL: unexpected error (generic message; details only in logs)"),
} as const;

/** For endpoints with a body (the limit is `BODY_LIMIT_BYTES`; it must be JSON). */
export const tooLargeResponse = {
  413: problem("PAYLOAD_TOO_LARGE: the body exceeds the limit"),
  415: problem("UNSUPPORTED_MEDIA_TYPE: the body is not `application/json`"),
};

export const conflictResponse = { 409: problem("CONFLICT: the resource is not in a state that allows this") };

export const rateLimitedResponse = {
  429: {
    ...problem("RATE_LIMITED: a tenant quota is exhausted; retry after `Retry-After` seconds"),
    headers: { "Retry-After": { description: "seconds to wait", schema: { type: "integer" as const } } },
  },
};

export const unavailableResponse = {
  503: {
    ...problem(
      "SANDBOX_UNAVAILABLE: the session's sandbox cannot be reached; UNAVAILABLE: Redis, the Docker engine " +
        "or the database is unreachable (nothing was created; retry after `Retry-After` seconds)",
    ),
    headers: { "Retry-After": { description: "seconds to wait", schema: { type: "integer" as const } } },
  },
};

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

export const bearer = [{ bearer: [] }];
