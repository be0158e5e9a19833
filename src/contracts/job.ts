/**
 * The job contract, declared once: the stored row's JSON columns (`db/schema.ts`), the service's
 * job view and the API's `Job` schema (`api/schemas.ts`, OpenAPI components by these ids) are
 * all these schemas and the types inferred from them.
 */
import { z } from "zod";

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
    // The sandbox died while the call ran: it may have partly happened and is not run again.
    "interrupted",
  ])
  .meta({ id: "JobStatus" });
export type JobStatus = z.infer<typeof JobStatus>;

/** Every status, for filters (the order of the lifecycle). */
export const JOB_STATUSES: readonly JobStatus[] = JobStatus.options;

/** Final statuses: nothing happens to such a job any more. */
export const TERMINAL: readonly JobStatus[] = ["succeeded", "failed", "denied", "cancelled", "interrupted"];
export const isTerminal = (s: JobStatus) => TERMINAL.includes(s);

/** The `approvedBy` of a job that nobody answered in time (its approval expired). */
export const EXPIRY_ACTOR = "expiry";

/** One time a worker took the job: who, in which sandbox instance, and how it ended. */
export const JobAttempt = z
  .object({
    n: z.number().int(),
    worker: z.string(),
    startedAt: z.string(),
    sandbox: z.string().optional().meta({ description: "the sandbox executor instance it used" }),
    endedAt: z.string().optional(),
    outcome: z.string().optional(),
  })
  .meta({ id: "JobAttempt" });
export type JobAttempt = z.infer<typeof JobAttempt>;

/** The permission decision stored with the job (the engine's, plus the mode it was made in). */
export const StoredDecision = z
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
      .meta({ description: "allowed because it only reads: it ran as the sandbox's read-only identity" }),
  })
  .meta({ id: "Decision" });
export type StoredDecision = z.infer<typeof StoredDecision>;

/** What a call answered (or why it did not run). */
export const StoredResult = z
  .object({
    content: z.array(
      z.union([
        z.object({ type: z.literal("text"), text: z.string() }),
        z.looseObject({ type: z.literal("data") }),
      ]),
    ),
    state: z.enum(["success", "error", "denied", "interrupted"]),
    exitCode: z.number().nullable().optional(),
    truncated: z.boolean().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "Result" });
export type StoredResult = z.infer<typeof StoredResult>;

/** The API's job: the row without its internals (tenant, seq, flags, request hash). */
export const JobView = z
  .object({
    id: z.string(),
    sessionId: z.string(),
    tool: z.string(),
    input: z.record(z.string(), z.unknown()),
    status: JobStatus,
    decision: StoredDecision,
    result: StoredResult.optional(),
    idempotencyKey: z.string().optional(),
    approvedBy: z
      .string()
      .optional()
      .meta({ description: 'the key id that answered the approval, or "expiry"' }),
    approvalExpiresAt: z
      .string()
      .optional()
      .meta({ description: "when a pending approval is denied unanswered" }),
    createdAt: z.string(),
    startedAt: z.string().optional(),
    finishedAt: z.string().optional(),
    hostId: z.string().optional().meta({ description: "the worker host that ran the call's latest attempt" }),
    attempts: z
      .array(JobAttempt)
      .optional()
      .meta({ description: "each time a worker took the job; more than one after a crash" }),
  })
  .meta({ id: "Job" });
export type JobView = z.infer<typeof JobView>;
