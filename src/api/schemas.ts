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
  JobStatus,
  JobView as Job,
  StoredDecision as Decision,
  StoredResult as Result,
} from "../contracts/job.js";

export const JobEnvelope = z.object({ job: JobView }).openapi("JobEnvelope");

const problem = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorBody } },
});

const retryAfter = {
  "Retry-After": { description: "seconds to wait", schema: { type: "integer" as const } },
};

/**
 * The errors every authenticated endpoint may answer. Each reads the database (the key at least),
 * so each may answer 503 while it is unreachable; endpoints that need more say so in their own 503.
 */
export const errorResponses = {
  400: problem("VALIDATION: invalid request; `details[].path` names the field"),
  401: problem("UNAUTHENTICATED: missing, unknown or revoked key"),
  403: problem("FORBIDDEN: the key's role may not do this"),
  404: problem("NOT_FOUND: no such resource, or another tenant's (indistinguishable)"),
  500: problem("INTERNAL: unexpected error (generic message; details only in logs)"),
  503: {
    ...problem(
      "UNAVAILABLE: the database (or Redis, where the endpoint uses it) is unreachable or out of disk; " +
        "retry after `Retry-After` seconds",
    ),
    headers: retryAfter,
  },
} as const;

/**
 * The open endpoints (no key, no input) answer GET only: their one 4xx is the 404 of any other
 * method on the path, in the error shape of every other answer.
 */
export const openEndpointErrors = {
  404: problem("NOT_FOUND: no route for that method and path (these paths answer GET only)"),
} as const;

/** For endpoints with a body (the limit is `BODY_LIMIT_BYTES`; it must be JSON). */
export const tooLargeResponse = {
  413: problem("PAYLOAD_TOO_LARGE: the body exceeds the limit"),
  415: problem("UNSUPPORTED_MEDIA_TYPE: the body is not `application/json`"),
};

export const egressRefusedResponse = {
  422: problem(
    "EGRESS_REFUSED: the host refuses to connect to that URL for a tenant; `details[].path` is `url`",
  ),
};

export const conflictResponse = { 409: problem("CONFLICT: the resource is not in a state that allows this") };

export const rateLimitedResponse = {
  429: {
    ...problem("RATE_LIMITED: a tenant quota is exhausted; retry after `Retry-After` seconds"),
    headers: retryAfter,
  },
};

export const unavailableResponse = {
  503: {
    ...problem(
      "SANDBOX_UNAVAILABLE: the session's sandbox cannot be reached; UNAVAILABLE: Redis, the Docker engine " +
        "or the database is unreachable (nothing was created; retry after `Retry-After` seconds)",
    ),
    headers: retryAfter,
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

/**
 * Marks a POST that only reads (nothing is run, stored or recorded): a client may send it again
 * after a failed connection (src/cli/client-contract.ts gives the clients that rule).
 */
export const readOnlyPost = { "x-read-only": true } as const;

/** The query of every paged list: `limit` (1–200, default 50) and the previous page's `nextCursor`. */
export const PageParams = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: "items per page, 1–200 (default 50)" }),
  cursor: z
    .string()
    .max(500)
    .optional()
    .openapi({ description: "`nextCursor` of the previous page, as it is (opaque)" }),
});

/** A page of a list, newest first (by `createdAt`, then `id`); `nextCursor` is null on the last page. */
export const page = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    nextCursor: z.string().nullable().openapi({ description: "pass as `cursor` for the next page" }),
  });

/** The platform admin's choice of tenant in a list (tenant keys see only their own). */
export const TenantFilter = z
  .string()
  .optional()
  .openapi({ description: "platform admin only: the tenant to list (default: every tenant)" });
