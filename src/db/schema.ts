/**
 * The durable store. Timestamps are ISO-8601 strings (UTC); JSON columns hold the API's
 * shapes. Every tenant-owned row carries `tenant_id` so that every query can be scoped.
 */
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { JobAttempt, JobStatus, StoredDecision, StoredResult } from "../contracts/job.js";
import type { KeyRole } from "../contracts/tenant.js";
import { activeJob, pendingApproval } from "./job-predicates.js";
import { type RuleStrings, sessions, tenants } from "./schema-core.js";

export type { JobAttempt, JobStatus, StoredDecision, StoredResult } from "../contracts/job.js";
export type { KeyRole } from "../contracts/tenant.js";
export { type RuleStrings, sessions, tenants } from "./schema-core.js";

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").references(() => tenants.id),
    role: text("role").$type<KeyRole>().notNull(),
    name: text("name"),
    hash: text("hash").notNull(),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_idx").on(t.hash)],
);

/**
 * Console sessions ended by sign-out, by their nonce: the signed cookie would otherwise stay good
 * until it expires. Kept until then (`expires_at`), then deleted by a later sign-out.
 */
export const consoleSignouts = sqliteTable(
  "console_signouts",
  {
    nonce: text("nonce").primaryKey(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("console_signouts_expires_idx").on(t.expiresAt)],
);

export const tenantRules = sqliteTable("tenant_rules", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  rules: text("rules", { mode: "json" }).$type<RuleStrings>().notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id),
    tool: text("tool").notNull(),
    input: text("input", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    status: text("status").$type<JobStatus>().notNull(),
    decision: text("decision", { mode: "json" }).$type<StoredDecision>().notNull(),
    result: text("result", { mode: "json" }).$type<StoredResult>(),
    idempotencyKey: text("idempotency_key"),
    /** SHA-256 of the canonical request body, set with an idempotency key: a reuse must match it. */
    requestHash: text("request_hash"),
    /** W3C trace id of the submitting request: the worker's log lines for the job carry it. */
    traceId: text("trace_id"),
    /** Queue order within the session (null until queued); drives per-session ordering. */
    seq: integer("seq"),
    concurrencySafe: integer("concurrency_safe", { mode: "boolean" }).notNull(),
    cancelRequested: integer("cancel_requested", { mode: "boolean" }).notNull().default(false),
    runs: integer("runs").notNull().default(0),
    /** Every claim of the job by a worker (JSON array of JobAttempt). */
    attempts: text("attempts", { mode: "json" }).$type<JobAttempt[]>(),
    /** The host whose worker ran (or runs) the job's latest attempt. */
    hostId: text("host_id"),
    error: text("error"),
    /** When a pending approval is denied by expiry. */
    approvalExpiresAt: text("approval_expires_at"),
    /** The key that approved or denied (audit), or "expiry". */
    approvedBy: text("approved_by"),
    createdAt: text("created_at").notNull(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
  },
  (t) => [
    uniqueIndex("jobs_session_idem_idx").on(t.sessionId, t.idempotencyKey),
    // Partial indexes hold only the few rows their queries look for, so that a call's insert and
    // finish write fewer index pages (job-predicates.ts: their queries must carry the same term).
    // The calls not yet over: a claim's "an earlier call of the session still queued or
    // running?", the successors to wake after a finish, recovery, a lost host's calls (status
    // first, so that a sweep of every session seeks it too).
    index("jobs_active_idx").on(t.status, t.sessionId, t.seq).where(activeJob(t.status)),
    // The approvals that expire: pending ones only.
    index("jobs_approval_expiry_idx").on(t.approvalExpiresAt).where(pendingApproval(t.status)),
    // The lists: a tenant's jobs newest first, and its jobs in one status (the approvals inbox).
    index("jobs_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("jobs_tenant_status_created_idx").on(t.tenantId, t.status, t.createdAt, t.id),
  ],
);

export const readCache = sqliteTable(
  "read_cache",
  {
    sessionId: text("session_id").notNull(),
    filePath: text("file_path").notNull(),
    lines: text("lines", { mode: "json" }).$type<string[]>().notNull(),
    mtimeMs: real("mtime_ms").notNull(),
    contentHash: text("content_hash").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.filePath] })],
);

export const audit = sqliteTable(
  "audit",
  {
    id: text("id").notNull(),
    tenantId: text("tenant_id").notNull(),
    sessionId: text("session_id"),
    jobId: text("job_id"),
    kind: text("kind").notNull(),
    actorKeyId: text("actor_key_id"),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: text("created_at").notNull(),
  },
  // The trail is read a tenant at a time, newest first (ids rise with time: ids.ts), and never
  // by id alone: its key is that order, so that an entry is one b-tree insert, not three (the
  // table, an id index and a tenant index: ~1 WAL page per call fewer on SQLite). Ids stay unique
  // by construction (a rising stamp and 9 random characters).
  (t) => [primaryKey({ columns: [t.tenantId, t.createdAt, t.id] })],
);

export type TenantRow = typeof tenants.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type SessionRow = typeof sessions.$inferSelect;
export type JobRow = typeof jobs.$inferSelect;

export * from "./schema-tools.js";
export * from "./schema-webhooks.js";
