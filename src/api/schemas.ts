/** Request and response schemas shared by the routes; they also generate the OpenAPI document. */
import { z } from "@hono/zod-openapi";
import { JobView } from "../contracts/job.js";
import { SessionView } from "../contracts/session.js";
import { RuleStrings } from "../contracts/tenant.js";
import { PermissionModeSchema } from "../permission/types.js";

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

export const Mode = PermissionModeSchema;

export const RuleSetBody = RuleStrings;

export const Session = SessionView;

// The job's shapes are the contract's own (OpenAPI components `Job`, `Decision`, `Result`, `JobAttempt`).
export {
  JobAttempt,
  JobView as Job,
  StoredDecision as Decision,
  StoredResult as Result,
} from "../contracts/job.js";

export const JobEnvelope = z.object({ job: JobView }).openapi("JobEnvelope");

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
