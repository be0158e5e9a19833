/**
 * The job store: the hot transactional paths of a call (sequence + insert, claim, finish,
 * approvals), declared once and implemented once per dialect (stores/sqlite-job-store.ts,
 * pg/pg-job-store.ts). Both pass one contract suite (test/db/store-contract.ts). Everything
 * here is one transaction or one conditional statement, so concurrent processes (API replicas,
 * workers on other hosts) cannot both win a transition.
 */
import { nowIso } from "../service/clock.js";
import type { ReadCacheEntry } from "../toolkit/read-cache.js";
import type { JobAttempt, JobRow, JobStatus, SessionRow, StoredDecision, StoredResult } from "./schema.js";

/** An audit entry written in the same transaction as the change it records. */
export interface AuditRecord {
  tenantId: string;
  sessionId: string;
  jobId: string;
  kind: "decision" | "approval" | "external_result" | "attempt";
  /** The key that acted; null for the service itself (expiry, a worker). */
  actorKeyId: string | null;
  data: Record<string, unknown>;
}

export type StoreClaim =
  /** `atInsert`: claimed by the insert itself (insertClaimed); its `queued` was never published. */
  | { kind: "run"; job: JobRow; session: SessionRow; atInsert?: true }
  | { kind: "wait"; blockedBy: string }
  | { kind: "skip"; reason: string };

export interface ClaimOptions {
  /** Names the claimer in the new attempt (`host/pid/start`). */
  worker: string;
  /**
   * Whether a job already `running` may be claimed again (its worker died and the queue handed
   * it over). Without it, only a `queued` job is claimed: of two claimers, exactly one wins.
   */
  takeOver: boolean;
  /** The claimer's worker host, recorded on the job (`host_id`) where the schema has it. */
  hostId?: string;
}

export interface FinishOptions {
  /** The job's `error` column (a failure outside the tool). */
  error?: string;
  /** A job flagged for cancellation is stored `cancelled` (see `finish`). */
  cancelWins?: boolean;
  /**
   * The run's read-cache entries (its Read, Write, Edit), stored with the finish whether or not
   * it applies (as the run's own put was): on Postgres in the finish's statement (one round trip
   * less per call), on SQLite as their own writes just before it (as cheap as it gets there).
   */
  readCache?: { sessionId: string; entries: readonly ReadCacheEntry[] };
  /**
   * The run's attempt (the `runs` its claim made): stored only while it is still the job's
   * latest, so a worker that lost the job (frozen, declared lost, taken over) never overwrites the
   * attempt that took it. Omitted by finishes that are no run's (cancel, give-up).
   */
  run?: number;
}

/** A finish as stored: the row, and whether a call of its session may be waiting on it. */
export type FinishedJob = JobRow & {
  /**
   * False when no call of the session took a queue position after this one before the finish
   * committed: none can be waiting on it, so there is nothing to wake. True when one did, or
   * when the store cannot tell exactly.
   */
  laterCalls: boolean;
};

/** How a pending approval ends: what to set on the job, rules to remember, and the audit entry. */
export interface ApprovalOutcome {
  set: {
    status: "queued" | "awaiting_external" | "denied";
    decision: StoredDecision;
    approvedBy: string;
    result?: StoredResult;
    finishedAt?: string;
  };
  /** Allow rules added to the session's rules (approvals only). */
  remember: string[];
  audit: AuditRecord;
}

export { ACTIVE_STATUSES } from "./job-predicates.js";

/**
 * Thrown, with nothing written, when a job would enter `queued` while its tenant already has
 * `limit` jobs queued or running. The service turns it into its 429.
 */
export class ActiveCallsFull extends Error {
  constructor(readonly limit: number) {
    super(`the tenant already has ${limit} jobs queued or running`);
    this.name = "ActiveCallsFull";
  }
}

export interface ActiveBound {
  /**
   * The tenant's bound on queued + running jobs, checked in the same transaction as the write
   * that would queue the job (and serialized per tenant), so that concurrent writers, in any
   * process, cannot all see room. Absent: no bound.
   */
  maxActive?: number;
}

/** A tenant and its bound on stored queued + running jobs (busyBefore). */
export interface TenantBound {
  tenantId: string;
  maxActive: number;
}

/** What insertClaimed did: `taken`, nothing written (the key's job); else the row's claim. */
export type InsertClaimed = { kind: "taken"; job: JobRow } | { kind: "stored"; claim: StoreClaim };

/** A claim made by the insert itself: by this worker host, only while the session is pinned to it. */
export interface InsertClaim {
  worker: string;
  hostId: string;
  /**
   * The executor instance the run will most likely use, recorded on its attempt up front (the
   * run records the one it gets when that differs): one write less per call.
   */
  sandbox?: string;
}

/** What insertFinished checks and stores besides the row. */
export interface FinishedInsert extends ActiveBound {
  /** The session's next queue position as read before the run. */
  seq: number;
  hostId: string;
  readCache?: FinishOptions["readCache"];
}

export interface JobStore {
  /**
   * Inserts the job and its audit entry; a `queued` job takes its session's next `seq`. When a
   * job of the session already holds the row's idempotency key, nothing is written and that
   * job is returned. A `queued` row past `opts.maxActive` throws ActiveCallsFull.
   */
  insertJob(row: JobRow, audit: AuditRecord, opts?: ActiveBound): Promise<JobRow | undefined>;
  /**
   * insertJob for a call the inserting process would run at once (the in-process hand-off): a
   * `queued` row that may start now (its session active and pinned to `claim.hostId`, no earlier
   * conflicting job of the session queued or running) is stored already claimed, in the same
   * transaction: `running`, with its first attempt open, and `run` (with `atInsert`) is returned.
   * Otherwise it is stored as insertJob stores it and the claim says why not (`wait`, `skip`).
   * One transaction instead of two on a warm call's path. `row` is updated to what was stored.
   */
  insertClaimed(
    row: JobRow,
    audit: AuditRecord,
    opts: ActiveBound & { claim: InsertClaim },
  ): Promise<InsertClaimed>;
  /**
   * Whether a job of the session ahead of `seq` (its next queue position, as read before) is
   * still queued or running: a call that may run before it is stored must find none. Also true
   * when the tenant's stored queued + running calls are `bound.maxActive` or more (counted as an
   * insert of a queued call would be), or the session is gone, in the same statement: a call
   * that would be refused at its store is not run first.
   */
  busyBefore(sessionId: string, seq: number, bound: TenantBound): Promise<boolean>;
  /**
   * Stores a call that already ran, in its final state, with its audit entry and its run's
   * read-cache entries, in one transaction (a read-only call run before it was stored:
   * service/calls/fast-read.ts). It takes the queue position `opts.seq` only while that is still
   * the session's next one (no call of the session was queued since it was read, by any process)
   * and the session is active and pinned to `opts.hostId`; otherwise nothing is written and
   * undefined is returned. Past `opts.maxActive` (counted as an insert of a queued call would
   * be), ActiveCallsFull, nothing written.
   */
  insertFinished(row: JobRow, audit: AuditRecord, opts: FinishedInsert): Promise<JobRow | undefined>;
  /** Deletes a still-`queued` job and its audit entries (its enqueue failed); true when it did. */
  withdrawQueued(jobId: string): Promise<boolean>;
  /**
   * Claims a job for a run: `skip` when it is not runnable (or is cancelled: the caller ends
   * it), `wait` while an earlier conflicting job of its session is queued or running (naming
   * one of them), else `run`: the row is `running` with a new attempt appended.
   */
  claim(jobId: string, opts: ClaimOptions): Promise<StoreClaim>;
  /** A `running` job goes back to `queued` (it keeps its `seq`); its attempt is closed with `why`. */
  requeue(jobId: string, why: string): Promise<void>;
  /**
   * Records which sandbox instance attempt `run` uses, before its first operation is sent; false
   * (nothing written) when the job is no longer `running` that attempt: another worker took it
   * over (or it ended), and this run must send nothing.
   */
  recordAttemptSandbox(jobId: string, sandbox: string, run: number): Promise<boolean>;
  /**
   * Stores a final status and result unless the job is already final (then undefined: a second
   * finish changes nothing); the open attempt is closed with the same outcome. Returns the row as
   * stored, so that its events need no second read. `cancelWins`: a job flagged for cancellation
   * (requestCancel) is stored `cancelled` instead, the flag read by the same statement.
   */
  finish(
    jobId: string,
    status: JobStatus,
    result: StoredResult,
    opts?: FinishOptions,
  ): Promise<FinishedJob | undefined>;
  /**
   * Ends a pending approval once: `decide` sees the job as locked (`awaiting_approval`) and the
   * database's clock read in the same statement (ISO text: db-clock.ts), and returns the outcome,
   * or undefined to leave it (not due). A `queued` outcome takes the
   * session's next `seq`, and throws ActiveCallsFull past `opts.maxActive` (the job stays
   * pending). False when the job was not pending or `decide` declined.
   */
  settleApproval(
    jobId: string,
    decide: (job: JobRow, dbNow: string) => ApprovalOutcome | undefined,
    opts?: ActiveBound,
  ): Promise<boolean>;
  /** Ids of the jobs still `awaiting_approval` whose expiry is at or before `now` (ISO). */
  dueApprovals(now: string): Promise<string[]>;
  /**
   * Takes the client's result of an `awaiting_external` job, once: false when the job is not
   * awaiting one (answered already). The audit entry lands with it.
   */
  finishExternal(
    jobId: string,
    status: "succeeded" | "failed",
    result: StoredResult,
    audit: AuditRecord,
  ): Promise<boolean>;
  /**
   * Flags the job for cancellation (a claim then skips it; its worker is told separately).
   * Returns the row's status and runs as of the flag, read by the same statement (undefined: no
   * such job): a row not `running` then is never claimed to run afterwards, so the caller may end
   * it; one `running` then may be running its command.
   */
  requestCancel(jobId: string): Promise<CancelFlagged | undefined>;
  /** The session's `queued` jobs after `seq`, oldest first, at most `limit`. */
  queuedAfter(sessionId: string, seq: number, limit: number): Promise<{ id: string; safe: boolean }[]>;
  findJob(jobId: string): Promise<JobRow | undefined>;
  /** The session's job that holds an idempotency key (none for no key). */
  findByKey(sessionId: string, key: string | undefined): Promise<JobRow | undefined>;
}

/** A job's state as of its cancel flag (JobStore.requestCancel). */
export type CancelFlagged = Pick<JobRow, "status" | "runs">;

/**
 * The attempts after a new claim. An attempt left open was cut short: by its worker's death when
 * another worker claims, else its own worker took the job again (a step redone after a database
 * outage or a full disk, or a hand-off it lost): that worker lives, so it is not called lost.
 */
export function attemptsAfterClaim(job: JobRow, worker: string, now: string): JobAttempt[] {
  const cut = (a: JobAttempt) => (a.worker === worker ? "taken again by the same worker" : "worker lost");
  const attempts = (job.attempts ?? []).map((a) => (a.endedAt ? a : { ...a, outcome: cut(a) }));
  attempts.push({ n: job.runs + 1, worker, startedAt: now });
  return attempts;
}

/**
 * The insert's own claim (insertClaimed), decided from what its transaction read: the session
 * and the first earlier blocker. On `run`, `row` becomes the claimed row (`running`, attempt 1).
 */
export function claimAtInsert(
  row: JobRow,
  session: SessionRow | undefined,
  blocker: { id: string } | undefined,
  opts: InsertClaim,
): StoreClaim {
  if (session?.status !== "active") return { kind: "skip", reason: "inactive" };
  if (session.hostId !== opts.hostId) return { kind: "skip", reason: "elsewhere" };
  if (blocker) return { kind: "wait", blockedBy: blocker.id };
  const now = nowIso();
  Object.assign(row, {
    status: "running",
    startedAt: now,
    runs: 1,
    attempts: attemptsAfterClaim(row, opts.worker, now).map((a) =>
      opts.sandbox === undefined ? a : { ...a, sandbox: opts.sandbox },
    ),
    hostId: opts.hostId,
  });
  return { kind: "run", job: row, session, atInsert: true };
}

/** The audit entry of a claim that takes over a job an earlier attempt left unfinished. */
export function takeoverAudit(job: JobRow, worker: string, attempts: JobAttempt[]): AuditRecord {
  const data = { n: job.runs + 1, worker, earlier: attempts.slice(0, -1) };
  return {
    tenantId: job.tenantId,
    sessionId: job.sessionId,
    jobId: job.id,
    kind: "attempt",
    actorKeyId: null,
    data,
  };
}

export const FINAL_STATUSES: readonly JobStatus[] = [
  "succeeded",
  "failed",
  "denied",
  "cancelled",
  "interrupted",
];
