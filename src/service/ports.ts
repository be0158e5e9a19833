/**
 * What the service verbs need, as narrow ports: the API and the worker build one `ServiceDeps`
 * in the composition root. Redis/BullMQ adapters live in `src/jobs`, Docker in `src/sandbox`.
 */
import type { Db } from "../db/db.js";
import type { JobRow, JobStatus } from "../db/rows.js";
import type { InsertClaim, JobStore, StoreClaim } from "../db/store.js";
import type { Logger } from "../log.js";
import type { EgressClient } from "../net/egress-fetch.js";
import type { EgressPolicy } from "../net/egress-policy.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import type { ReadCacheStore } from "../toolkit/read-cache.js";
import type { ToolBase } from "../toolkit/tool-base.js";
import type { HostClock } from "./clock.js";
import type { TransferStore } from "./files/transfer-store.js";
import type { Metrics } from "./metrics.js";
import type { Readiness } from "./readiness.js";
import type { SecretBox } from "./secret-box.js";
import type { McpRuntime, SessionHostRpc } from "./sessions/mcp-clients.js";
import type { SandboxPolicy } from "./tenancy/sandbox-settings.js";
import type { SkillFiles } from "./tool-config/skill-files.js";

export type JobEventType = "status" | "chunk" | "result";

/** An event as it is sent (its id is given by the stream). */
export type JobEventInput = { type: JobEventType; data: unknown };

export interface JobEvent {
  /** Monotonic per job (a Redis stream id); SSE `id:` and `Last-Event-ID`. */
  id: string;
  type: JobEventType;
  data: unknown;
}

/** "A job of this tenant is now in this status", to every process (the approvals stream). */
export interface JobNotice {
  jobId: string;
  status: JobStatus;
}

/** The per-job event log (SSE, wait) and the cross-process notifications. */
export interface JobEvents {
  /**
   * Appends events in order, in one round trip. Appends of a job are stored in the order they
   * are called, even when an earlier one has not resolved yet (callers need not chain them).
   */
  append(jobId: string, ...events: JobEventInput[]): Promise<void>;
  /** Events strictly after `afterId` (all when absent), oldest first. */
  read(jobId: string, afterId?: string, count?: number): Promise<JobEvent[]>;
  /** Calls `onChange` whenever the job gets a new event, from any process; returns unsubscribe. */
  watch(jobId: string, onChange: () => void): Promise<() => void>;
  /**
   * A status change: appends its events (as `append`) and tells every process's watchers of the
   * tenant (the approvals stream), in one round trip. `held`: not sent now but with this
   * process's next write or read of events, or a few ms later at the latest (in order all the
   * same); resolves once sent.
   */
  publishStatus(
    jobId: string,
    tenantId: string,
    status: JobStatus,
    events: JobEventInput[],
    opts?: { held?: boolean },
  ): Promise<void>;
  /** Calls `onNotice` for each status change of the tenant's jobs, from any process; returns unsubscribe. */
  watchTenant(tenantId: string, onNotice: (n: JobNotice) => void): Promise<() => void>;
}

/** The work queue; payloads are job ids only: the row is the source of truth. */
export interface JobQueue {
  /** `priority`: BullMQ-style, lower runs first (tenant fairness, see fair-priority.ts). */
  enqueue(jobId: string, opts?: { priority?: number }): Promise<void>;
  /** Wakes a job held back by its session's ordering (no-op when it is not waiting). */
  promote(jobId: string): Promise<void>;
  /** Drops a queued job that will never run (cancelled before start); best effort. */
  discard(jobId: string): Promise<void>;
}

/** The webhook delivery queue: payloads are delivery ids (rows are the truth), retried with backoff. */
export interface WebhookQueue {
  enqueue(deliveryId: string): Promise<void>;
}

/** What webhook verbs and deliveries need: the queue, the secret box, the egress policy and client. */
export interface WebhookRuntime {
  queue: WebhookQueue;
  secrets: SecretBox;
  egress: EgressPolicy;
  /** Checks every connection against `egress`; never follows redirects. */
  http: EgressClient;
  /** Each POST's bound. */
  timeoutMs: number;
}

/** Reaches the worker running a job, wherever it is. */
export interface CancelBus {
  requestCancel(jobId: string): Promise<void>;
}

/** Fixed-window counters shared by every API process. */
export interface RateLimiter {
  /** Counts one hit; returns the seconds to wait when past `limit`, else null. */
  hit(key: string, limit: number, windowS: number): Promise<number | null>;
}

export interface Quotas {
  maxSessions: number;
  callsPerMinute: number;
  /** Queued + running calls per tenant; unset means DEFAULT_MAX_ACTIVE_CALLS. */
  maxActiveCalls?: number;
  /** Live (unrevoked) API keys per tenant; unset means DEFAULT_MAX_API_KEYS. */
  maxApiKeys?: number;
}

export interface ToolRegistry {
  list(): readonly ToolBase[];
  get(name: string): ToolBase | undefined;
}

export interface ServiceDeps {
  db: Db;
  /** The hot transactional paths of a call (submit, claim, finish, approvals), per dialect. */
  store: JobStore;
  tools: ToolRegistry;
  queue: JobQueue;
  events: JobEvents;
  cancels: CancelBus;
  sandboxes: SandboxProvider;
  readCache: ReadCacheStore;
  /** Tenants' skill files on the host (mounted read-only at /skills in session containers). */
  skillFiles: SkillFiles;
  /** Staged bytes of workspace file transfers, shared by API and worker hosts (not a local disk). */
  transfers: TransferStore;
  metrics: Metrics;
  logger: Logger;
  limiter: RateLimiter;
  quotas: Quotas;
  /** Tenants' MCP servers (secrets, cached listings); absent where MCP is not configured. */
  mcp?: McpRuntime;
  /** Seals tenants' secrets at rest (sandbox environment variables). */
  secrets: SecretBox;
  /** The sandbox images and limits a tenant may choose from. */
  sandboxPolicy: SandboxPolicy;
  /** Tenants' webhooks (queue, secrets, egress); absent where not configured (no deliveries then). */
  webhooks?: WebhookRuntime;
  /** Probes of Redis, the Docker engine and the database (`/readyz`, and submit's 503). */
  readiness: Readiness;
  /** This process's worker host (set where a worker runs): recorded on the jobs it claims. */
  hostId?: string;
  /** This host's wall clock (absent: the machine's); see clock.ts for what it may decide. */
  hostClock?: HostClock;
  /** Reaches the worker holding a session's sandbox (set in the service; absent, listings are local). */
  hostRpc?: SessionHostRpc;
  /** Serve mode: this process's worker runs a just-stored call itself when it can (src/jobs/local-handoff.ts). */
  handoff?: CallHandoff;
  /** Days finished jobs are kept (JOB_RETENTION_DAYS; absent or 0: forever), named in a missing job's 404. */
  jobRetentionDays?: number;
}

/**
 * Runs a call this process is storing in this process (API and worker in one), without the
 * queue's round trips: `reserve` takes one of the worker's slots before the insert and names the
 * claim the insert makes itself (JobStore.insertClaimed). Undefined: no slot (not serve mode,
 * full, closing); store and queue the call as usual.
 */
export interface CallHandoff {
  reserve(jobId: string, sessionId: string): HandoffSlot | undefined;
  /**
   * While `jobId` runs here: resolves with its row once this run stored its final row (its
   * events and successors may still be on their way), or as it is when the run ended otherwise
   * (back to `queued` for a retry elsewhere). Undefined when it does not run here.
   */
  ended(jobId: string): Promise<JobRow | undefined> | undefined;
}

/** One reserved run: exactly one of `run` (the insert claimed the row) or `release` is called. */
export interface HandoffSlot {
  readonly claim: InsertClaim;
  run(claim: Extract<StoreClaim, { kind: "run" }>): void;
  release(): void;
}

/** A registry over a fixed list of tools. */
export function toolRegistry(tools: readonly ToolBase[]): ToolRegistry {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return { list: () => tools, get: (name) => byName.get(name) };
}
