/**
 * The SQLite JobStore: better-sqlite3 is synchronous and every transaction begins IMMEDIATE
 * (open.ts), so each method is one serialized transaction or one conditional statement.
 */
import { and, eq, lte, sql } from "drizzle-orm";
import { nowIso } from "../../service/clock.js";
import { newId } from "../../service/ids.js";
import type { Db } from "../db.js";
import { dbNowSql } from "../db-clock.js";
import { pendingApproval } from "../job-predicates.js";
import { preparedFor } from "../prepared.js";
import { audit, type JobRow, type JobStatus, jobs, type StoredResult, sessions } from "../schema.js";
import {
  type ActiveBound,
  ActiveCallsFull,
  type ApprovalOutcome,
  type AuditRecord,
  attemptsAfterClaim,
  type CancelFlagged,
  type ClaimOptions,
  claimAtInsert,
  type FinishedInsert,
  type FinishedJob,
  type FinishOptions,
  type InsertClaim,
  type InsertClaimed,
  type JobStore,
  type StoreClaim,
  type TenantBound,
  takeoverAudit,
} from "../store.js";
import { putReadCacheEntry } from "./read-cache-store.js";
import { closeLastAttempt, jobStatementsFor } from "./sqlite-job-statements.js";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export class SqliteJobStore implements JobStore {
  constructor(private readonly db: Db) {}

  async insertJob(row: JobRow, entry: AuditRecord, opts: ActiveBound = {}): Promise<JobRow | undefined> {
    const out = this.insert(row, entry, opts);
    return out.kind === "taken" ? out.job : undefined;
  }

  async insertClaimed(
    row: JobRow,
    entry: AuditRecord,
    opts: ActiveBound & { claim: InsertClaim },
  ): Promise<InsertClaimed> {
    return this.insert(row, entry, opts, opts.claim);
  }

  private insert(row: JobRow, entry: AuditRecord, opts: ActiveBound, claimFor?: InsertClaim): InsertClaimed {
    const key = row.idempotencyKey ?? undefined;
    try {
      return this.db.transaction((tx): InsertClaimed => {
        const dup = findByKey(tx, row.sessionId, key);
        if (dup) return { kind: "taken", job: dup };
        let claim: StoreClaim = { kind: "skip", reason: row.status };
        if (row.status === "queued") {
          requireActiveSlot(this.db, row.tenantId, opts.maxActive);
          if (claimFor) claim = this.claimNew(row, claimFor);
          else row.seq = takeSeq(this.db, row.sessionId);
        }
        jobStatementsFor(this.db).insertJob.run(row);
        writeAudit(this.db, entry);
        return { kind: "stored", claim };
      });
    } catch (err) {
      // Another process inserted the key between our check and our insert.
      const dup = isUniqueViolation(err) ? findByKey(this.db, row.sessionId, key) : undefined;
      if (dup) return { kind: "taken", job: dup };
      throw err;
    }
  }

  /**
   * The insert's own claim of a new row: takes its `seq` and reads the session (as the update
   * that took it returns it) and the first blocker, in the insert's transaction.
   */
  private claimNew(row: JobRow, opts: InsertClaim): StoreClaim {
    const s = jobStatementsFor(this.db);
    const session = s.takeSeqAndSession.get({ sessionId: row.sessionId, now: nowIso() });
    if (!session) throw new Error(`session ${row.sessionId} vanished`);
    row.seq = session.nextSeq - 1;
    const ahead = { sessionId: row.sessionId, seq: row.seq ?? 0 };
    const blocker = (row.concurrencySafe ? s.blockedByUnsafe : s.blockedByAny).get(ahead);
    return claimAtInsert(row, session, blocker, opts);
  }

  async busyBefore(sessionId: string, seq: number, bound: TenantBound): Promise<boolean> {
    const { tenantId, maxActive } = bound;
    const row = jobStatementsFor(this.db).busyOrFull.get({ sessionId, seq, tenantId, maxActive });
    return row === undefined || Boolean(row.busy);
  }

  async insertFinished(row: JobRow, entry: AuditRecord, opts: FinishedInsert): Promise<JobRow | undefined> {
    return this.db.transaction((): JobRow | undefined => {
      const s = jobStatementsFor(this.db);
      requireActiveSlot(this.db, row.tenantId, opts.maxActive);
      const now = nowIso();
      const taken = s.takeSeqIfUnchanged.get({
        sessionId: row.sessionId,
        seq: opts.seq,
        hostId: opts.hostId,
        now,
      });
      if (!taken) return undefined;
      const stored = { ...row, seq: opts.seq };
      s.insertJob.run(stored);
      writeAudit(this.db, entry);
      const cache = opts.readCache;
      if (cache) for (const e of cache.entries) putReadCacheEntry(this.db, cache.sessionId, e, now);
      return stored;
    });
  }

  async withdrawQueued(jobId: string): Promise<boolean> {
    return this.db.transaction((tx) => {
      const gone = tx
        .delete(jobs)
        .where(and(eq(jobs.id, jobId), eq(jobs.status, "queued")))
        .run();
      if (gone.changes > 0) tx.delete(audit).where(eq(audit.jobId, jobId)).run();
      return gone.changes > 0;
    });
  }

  async claim(jobId: string, opts: ClaimOptions): Promise<StoreClaim> {
    return this.db.transaction((): StoreClaim => {
      // The prepared statements run on the transaction's connection (better-sqlite3 is synchronous).
      const job = preparedFor(this.db).jobById.get({ id: jobId });
      if (!job) return { kind: "skip", reason: "no such job" };
      if (job.status !== "queued" && !(job.status === "running" && opts.takeOver))
        return { kind: "skip", reason: job.status };
      const session = preparedFor(this.db).sessionById.get({ id: job.sessionId });
      if (job.cancelRequested || session?.status !== "active") return { kind: "skip", reason: "cancelled" };
      const s = jobStatementsFor(this.db);
      const ahead = { sessionId: job.sessionId, seq: job.seq ?? 0 };
      const blocker = (job.concurrencySafe ? s.blockedByUnsafe : s.blockedByAny).get(ahead);
      if (blocker) return { kind: "wait", blockedBy: blocker.id };
      const now = nowIso();
      const startedAt = job.startedAt ?? now;
      const attempts = attemptsAfterClaim(job, opts.worker, now);
      if (job.runs > 0) writeAudit(this.db, takeoverAudit(job, opts.worker, attempts));
      const hostId = opts.hostId ?? null;
      s.claim.run({ id: jobId, startedAt, attempts, hostId });
      const claimed = { ...job, status: "running" as const, startedAt, runs: job.runs + 1, attempts, hostId };
      return { kind: "run", job: claimed, session };
    });
  }

  async requeue(jobId: string, why: string): Promise<void> {
    this.db
      .update(jobs)
      .set({ status: "queued", attempts: closeLastAttempt(nowIso(), why) })
      .where(and(eq(jobs.id, jobId), eq(jobs.status, "running")))
      .run();
  }

  async recordAttemptSandbox(jobId: string, sandbox: string, run: number): Promise<boolean> {
    return jobStatementsFor(this.db).attemptSandbox.run({ id: jobId, sandbox, run }).changes > 0;
  }

  async finish(
    jobId: string,
    status: JobStatus,
    result: StoredResult,
    opts: FinishOptions = {},
  ): Promise<FinishedJob | undefined> {
    const now = nowIso();
    // Each entry its own write, just before the finish: one transaction around them measured
    // more CPU per call here (its BEGIN and COMMIT cost more than the commit it saves).
    const cache = opts.readCache;
    if (cache) for (const entry of cache.entries) putReadCacheEntry(this.db, cache.sessionId, entry, now);
    // `all()`, not `get()`: an UPDATE … RETURNING commits when the statement ends, and
    // better-sqlite3's get() stops at the first row and ignores the error of that end (a disk
    // full, SQLITE_FULL): the row would come back while the write was rolled back.
    return jobStatementsFor(this.db).finish.all({
      id: jobId,
      status,
      cancelWins: opts.cancelWins ? 1 : 0,
      result,
      now,
      error: opts.error ?? null,
      run: opts.run ?? null,
    })[0];
  }

  async settleApproval(
    jobId: string,
    decide: (job: JobRow, dbNow: string) => ApprovalOutcome | undefined,
    opts: ActiveBound = {},
  ): Promise<boolean> {
    return this.db.transaction((tx) => {
      const got = tx
        .select({ job: jobs, now: dbNowSql(tx) })
        .from(jobs)
        .where(eq(jobs.id, jobId))
        .get();
      const job = got?.job;
      if (job?.status !== "awaiting_approval") return false;
      const outcome = decide(job, got!.now);
      if (!outcome) return false;
      const queued = outcome.set.status === "queued";
      if (queued) requireActiveSlot(this.db, job.tenantId, opts.maxActive);
      const seq = queued ? takeSeq(this.db, job.sessionId) : job.seq;
      tx.update(jobs)
        .set({ ...outcome.set, seq })
        .where(and(eq(jobs.id, jobId), eq(jobs.status, "awaiting_approval")))
        .run();
      rememberRules(tx, job.sessionId, outcome.remember);
      writeAudit(this.db, outcome.audit);
      return true;
    });
  }

  async dueApprovals(now: string): Promise<string[]> {
    const rows = this.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(pendingApproval(jobs.status), lte(jobs.approvalExpiresAt, now)))
      .all();
    return rows.map((r) => r.id);
  }

  async finishExternal(
    jobId: string,
    status: "succeeded" | "failed",
    result: StoredResult,
    entry: AuditRecord,
  ): Promise<boolean> {
    return this.db.transaction((tx) => {
      const now = nowIso();
      const res = tx
        .update(jobs)
        .set({ status, result, startedAt: sql`coalesce(${jobs.startedAt}, ${now})`, finishedAt: now })
        .where(and(eq(jobs.id, jobId), eq(jobs.status, "awaiting_external")))
        .run();
      if (res.changes === 0) return false;
      writeAudit(this.db, entry);
      return true;
    });
  }

  async requestCancel(jobId: string): Promise<CancelFlagged | undefined> {
    // Not get(): it would hide a failed commit (see finish).
    const [flagged] = this.db
      .update(jobs)
      .set({ cancelRequested: true })
      .where(eq(jobs.id, jobId))
      .returning({ status: jobs.status, runs: jobs.runs })
      .all();
    return flagged;
  }

  async queuedAfter(sessionId: string, seq: number, limit: number): Promise<{ id: string; safe: boolean }[]> {
    return jobStatementsFor(this.db).queuedAfter.all({ sessionId, seq, limit });
  }

  async findJob(jobId: string): Promise<JobRow | undefined> {
    return preparedFor(this.db).jobById.get({ id: jobId });
  }

  async findByKey(sessionId: string, key: string | undefined): Promise<JobRow | undefined> {
    return findByKey(this.db, sessionId, key);
  }
}

/**
 * Throws ActiveCallsFull when the tenant has `max` jobs queued or running. Race-free as it is:
 * every transaction begins IMMEDIATE, so no other writer, in any process, runs between this
 * count and the caller's write. Takes the store's handle, like takeSeq.
 */
function requireActiveSlot(db: Db, tenantId: string, max: number | undefined): void {
  if (max === undefined) return;
  const row = preparedFor(db).activeCount.get({ tenantId });
  if ((row?.n ?? 0) >= max) throw new ActiveCallsFull(max);
}

/**
 * The session's next queue position; a job's `seq` is given when it enters the queue. Like
 * writeAudit, it takes the store's handle, not a transaction's: statements prepared on the
 * database run inside its transactions too (one synchronous connection).
 */
function takeSeq(db: Db, sessionId: string): number {
  const row = jobStatementsFor(db).takeSeq.get({ sessionId, now: nowIso() });
  if (!row) throw new Error(`session ${sessionId} vanished`);
  return row.next - 1;
}

function rememberRules(tx: Tx, sessionId: string, remember: string[]): void {
  if (remember.length === 0) return;
  const session = tx.select().from(sessions).where(eq(sessions.id, sessionId)).get();
  if (!session) return;
  const allow = [...new Set([...session.rules.allow, ...remember])];
  tx.update(sessions)
    .set({ rules: { ...session.rules, allow } })
    .where(eq(sessions.id, sessionId))
    .run();
}

function writeAudit(db: Db, entry: AuditRecord): void {
  jobStatementsFor(db).audit.run({ id: newId("aud"), ...entry, createdAt: nowIso() });
}

function findByKey(db: Db | Tx, sessionId: string, key: string | undefined): JobRow | undefined {
  if (!key) return undefined;
  return db
    .select()
    .from(jobs)
    .where(and(eq(jobs.sessionId, sessionId), eq(jobs.idempotencyKey, key)))
    .get();
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === "SQLITE_CONSTRAINT_UNIQUE";
}
