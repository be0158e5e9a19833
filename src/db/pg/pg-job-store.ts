/**
 * The Postgres JobStore. Read-then-write paths lock the job row (`SELECT … FOR UPDATE`), so two
 * claimers or two answerers of one job serialize and the second sees the first's outcome; the
 * session's `next_seq` is bumped with `UPDATE … RETURNING`, whose row lock makes concurrent
 * submits of a session take distinct, gap-free numbers. Single transitions (finish, requeue)
 * are one conditional UPDATE.
 */
import { and, count, eq, exists, gt, inArray, lt, lte, notInArray, type SQL, sql } from "drizzle-orm";
import { nowIso } from "../../service/clock.js";
import { newId } from "../../service/ids.js";
import type { ReadCacheEntry } from "../../toolkit/read-cache.js";
import type { Db } from "../db.js";
import { dbNowSql } from "../db-clock.js";
import { activeJob, pendingApproval, queuedJob, readCacheReplacement } from "../job-predicates.js";
import type { JobRow, JobStatus, SessionRow, StoredResult } from "../schema.js";
import {
  ACTIVE_STATUSES,
  type ActiveBound,
  ActiveCallsFull,
  type ApprovalOutcome,
  type AuditRecord,
  attemptsAfterClaim,
  type CancelFlagged,
  type ClaimOptions,
  claimAtInsert,
  FINAL_STATUSES,
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
import { readCacheRow } from "../stores/read-cache-store.js";
import type { PgDb } from "./open-pg.js";
import { audit, jobs, readCache, sessions } from "./schema.js";

type Tx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

export class PgJobStore implements JobStore {
  constructor(private readonly db: PgDb) {}

  async insertJob(row: JobRow, entry: AuditRecord, opts: ActiveBound = {}): Promise<JobRow | undefined> {
    const out = await this.insert(row, entry, opts);
    return out.kind === "taken" ? out.job : undefined;
  }

  insertClaimed(
    row: JobRow,
    entry: AuditRecord,
    opts: ActiveBound & { claim: InsertClaim },
  ): Promise<InsertClaimed> {
    return this.insert(row, entry, opts, opts.claim);
  }

  private async insert(
    row: JobRow,
    entry: AuditRecord,
    opts: ActiveBound,
    claimFor?: InsertClaim,
  ): Promise<InsertClaimed> {
    const key = row.idempotencyKey ?? undefined;
    try {
      return await this.db.transaction(async (tx): Promise<InsertClaimed> => {
        const dup = await findByKey(tx, row.sessionId, key);
        if (dup) return { kind: "taken", job: dup };
        let claim: StoreClaim = { kind: "skip", reason: row.status };
        if (row.status === "queued") {
          await requireActiveSlot(tx, row.tenantId, opts.maxActive);
          // takeSeq holds the session's row lock: its pin cannot change before this commits. The
          // session comes back from the update that took the number (no read of its own).
          const session = await takeSeqAndSession(tx, row.sessionId);
          row.seq = session.nextSeq - 1;
          if (claimFor) claim = claimAtInsert(row, session, await firstBlocker(tx, row), claimFor);
        }
        await tx.insert(jobs).values(row);
        await writeAudit(tx, entry);
        return { kind: "stored", claim };
      });
    } catch (err) {
      // A concurrent submit with the same key committed first: the unique index stopped ours, or
      // its job took the tenant's last slot while ours waited for the lock. Either way it is ours.
      const raced = isUniqueViolation(err) || err instanceof ActiveCallsFull;
      const dup = raced ? await findByKey(this.db, row.sessionId, key) : undefined;
      if (dup) return { kind: "taken", job: dup };
      throw err;
    }
  }

  async busyBefore(sessionId: string, seq: number, bound: TenantBound): Promise<boolean> {
    const ahead = this.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.sessionId, sessionId), lt(jobs.seq, seq), activeJob(jobs.status)));
    // The tenant's bound in the same statement (one round trip): the statuses requireActiveSlot counts.
    const active = this.db
      .select({ n: count() })
      .from(jobs)
      .where(and(eq(jobs.tenantId, bound.tenantId), activeJob(jobs.status)));
    const [row] = await this.db
      .select({ busy: sql<boolean>`${exists(ahead)} or (${active}) >= ${bound.maxActive}` })
      .from(sessions)
      .where(eq(sessions.id, sessionId));
    return row === undefined || row.busy === true;
  }

  async insertFinished(row: JobRow, entry: AuditRecord, opts: FinishedInsert): Promise<JobRow | undefined> {
    return this.db.transaction(async (tx): Promise<JobRow | undefined> => {
      await requireActiveSlot(tx, row.tenantId, opts.maxActive);
      const now = nowIso();
      // The session's row lock, as takeSeq takes it: a concurrent insert of the session (any
      // host) waits for this commit, or this update sees its new next_seq and takes nothing.
      const [taken] = await tx
        .update(sessions)
        .set({ nextSeq: sql`${sessions.nextSeq} + 1`, lastUsedAt: now })
        .where(
          and(
            eq(sessions.id, row.sessionId),
            eq(sessions.nextSeq, opts.seq),
            eq(sessions.status, "active"),
            eq(sessions.hostId, opts.hostId),
          ),
        )
        .returning({ next: sessions.nextSeq });
      if (!taken) return undefined;
      const stored = { ...row, seq: opts.seq };
      const cache = opts.readCache;
      const db = cache?.entries.length
        ? tx.with(putReadCache(this.db, cache.sessionId, cache.entries, now))
        : tx;
      await db.insert(jobs).values(stored);
      await writeAudit(tx, entry);
      return stored;
    });
  }

  async withdrawQueued(jobId: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const gone = await tx
        .delete(jobs)
        .where(and(eq(jobs.id, jobId), eq(jobs.status, "queued")))
        .returning({ id: jobs.id });
      if (gone.length > 0) await tx.delete(audit).where(eq(audit.jobId, jobId));
      return gone.length > 0;
    });
  }

  async claim(jobId: string, opts: ClaimOptions): Promise<StoreClaim> {
    return this.db.transaction(async (tx): Promise<StoreClaim> => {
      const [job] = (await tx.select().from(jobs).where(eq(jobs.id, jobId)).for("update")) as JobRow[];
      if (!job) return { kind: "skip", reason: "no such job" };
      if (job.status !== "queued" && !(job.status === "running" && opts.takeOver))
        return { kind: "skip", reason: job.status };
      const [session] = (await tx
        .select()
        .from(sessions)
        .where(eq(sessions.id, job.sessionId))) as SessionRow[];
      if (job.cancelRequested || session?.status !== "active") return { kind: "skip", reason: "cancelled" };
      const blocker = await firstBlocker(tx, job);
      if (blocker) return { kind: "wait", blockedBy: blocker.id };
      const now = nowIso();
      const startedAt = job.startedAt ?? now;
      const attempts = attemptsAfterClaim(job, opts.worker, now);
      if (job.runs > 0) await writeAudit(tx, takeoverAudit(job, opts.worker, attempts));
      await tx
        .update(jobs)
        .set({
          status: "running",
          startedAt,
          runs: sql`${jobs.runs} + 1`,
          attempts,
          hostId: opts.hostId ?? null,
        })
        .where(eq(jobs.id, jobId));
      const claimed = {
        ...job,
        status: "running" as const,
        startedAt,
        runs: job.runs + 1,
        attempts,
        hostId: opts.hostId ?? null,
      };
      return { kind: "run", job: claimed, session };
    });
  }

  async requeue(jobId: string, why: string): Promise<void> {
    await this.db
      .update(jobs)
      .set({ status: "queued", attempts: closeLastAttempt(nowIso(), why) })
      .where(and(eq(jobs.id, jobId), eq(jobs.status, "running")));
  }

  async recordAttemptSandbox(jobId: string, sandbox: string, run: number): Promise<boolean> {
    const done = await this.db
      .update(jobs)
      .set({ attempts: sql`jsonb_set(${jobs.attempts}, '{-1,sandbox}', to_jsonb(${sandbox}::text))` })
      .where(
        and(
          eq(jobs.id, jobId),
          eq(jobs.status, "running"),
          eq(jobs.runs, run),
          sql`jsonb_array_length(coalesce(${jobs.attempts}, '[]'::jsonb)) > 0`,
        ),
      )
      .returning({ id: jobs.id });
    return done.length > 0;
  }

  async finish(
    jobId: string,
    status: JobStatus,
    result: StoredResult,
    opts: FinishOptions = {},
  ): Promise<FinishedJob | undefined> {
    const now = nowIso();
    // SET expressions see the row as it was: the flag is read by this very statement.
    const final = opts.cancelWins
      ? sql`case when ${jobs.cancelRequested} then 'cancelled' else ${status} end`
      : sql`${status}`;
    // The run's read-cache entries in the same statement (a data-modifying CTE: one round trip).
    const cache = opts.readCache;
    const db = cache?.entries.length
      ? this.db.with(putReadCache(this.db, cache.sessionId, cache.entries, now))
      : this.db;
    const [done] = (await db
      .update(jobs)
      .set({
        status: sql`${final}`,
        result,
        finishedAt: now,
        error: opts.error ?? null,
        attempts: closeLastAttempt(now, final),
      })
      .where(
        and(
          eq(jobs.id, jobId),
          notInArray(jobs.status, [...FINAL_STATUSES]),
          opts.run === undefined ? undefined : eq(jobs.runs, opts.run),
        ),
      )
      .returning()) as JobRow[];
    // Not told exactly here: a submit whose transaction took the session's next seq before this
    // statement ran but commits after its snapshot would go unseen (READ COMMITTED). Seeing it
    // would take a lock on the session row, ordered after the job's (deleteSession takes them
    // the other way round). So the caller always looks for successors (queuedAfter), as before.
    return done && { ...done, laterCalls: true };
  }

  async settleApproval(
    jobId: string,
    decide: (job: JobRow, dbNow: string) => ApprovalOutcome | undefined,
    opts: ActiveBound = {},
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [got] = await tx
        .select({ job: jobs, now: dbNowSql(this.db as unknown as Db) })
        .from(jobs)
        .where(eq(jobs.id, jobId))
        .for("update");
      const job = got?.job as JobRow | undefined;
      if (job?.status !== "awaiting_approval") return false;
      const outcome = decide(job, got!.now);
      if (!outcome) return false;
      const queued = outcome.set.status === "queued";
      if (queued) await requireActiveSlot(tx, job.tenantId, opts.maxActive);
      const seq = queued ? await takeSeq(tx, job.sessionId) : job.seq;
      await tx
        .update(jobs)
        .set({ ...outcome.set, seq })
        .where(eq(jobs.id, jobId));
      await rememberRules(tx, job.sessionId, outcome.remember);
      await writeAudit(tx, outcome.audit);
      return true;
    });
  }

  async dueApprovals(now: string): Promise<string[]> {
    const rows = await this.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(pendingApproval(jobs.status), lte(jobs.approvalExpiresAt, now)));
    return rows.map((r) => r.id);
  }

  async finishExternal(
    jobId: string,
    status: "succeeded" | "failed",
    result: StoredResult,
    entry: AuditRecord,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const now = nowIso();
      const done = await tx
        .update(jobs)
        .set({ status, result, startedAt: sql`coalesce(${jobs.startedAt}, ${now})`, finishedAt: now })
        .where(and(eq(jobs.id, jobId), eq(jobs.status, "awaiting_external")))
        .returning({ id: jobs.id });
      if (done.length === 0) return false;
      await writeAudit(tx, entry);
      return true;
    });
  }

  async requestCancel(jobId: string): Promise<CancelFlagged | undefined> {
    const [row] = await this.db
      .update(jobs)
      .set({ cancelRequested: true })
      .where(eq(jobs.id, jobId))
      .returning({ status: jobs.status, runs: jobs.runs });
    return row;
  }

  async queuedAfter(sessionId: string, seq: number, limit: number): Promise<{ id: string; safe: boolean }[]> {
    return this.db
      .select({ id: jobs.id, safe: jobs.concurrencySafe })
      .from(jobs)
      .where(
        and(eq(jobs.sessionId, sessionId), activeJob(jobs.status), queuedJob(jobs.status), gt(jobs.seq, seq)),
      )
      .orderBy(jobs.seq)
      .limit(limit);
  }

  async findJob(jobId: string): Promise<JobRow | undefined> {
    const [row] = await this.db.select().from(jobs).where(eq(jobs.id, jobId));
    return row as JobRow | undefined;
  }

  findByKey(sessionId: string, key: string | undefined): Promise<JobRow | undefined> {
    return findByKey(this.db, sessionId, key);
  }
}

/** The advisory-lock namespace of the per-tenant active-call bound (the migrations use one bigint key). */
const ACTIVE_SLOT_LOCK = 7_312_002;

/**
 * Throws ActiveCallsFull when the tenant has `max` jobs queued or running. Under READ COMMITTED
 * two transactions could both count room and both insert, so the count runs under a per-tenant
 * transaction-scoped advisory lock: the next writer of that tenant waits for this one's commit,
 * then counts its job. Taken before takeSeq's session row lock, always in that order (no
 * deadlock); two tenants whose ids hash alike merely share a lock.
 */
async function requireActiveSlot(tx: Tx, tenantId: string, max: number | undefined): Promise<void> {
  if (max === undefined) return;
  await tx.execute(sql`select pg_advisory_xact_lock(${ACTIVE_SLOT_LOCK}::int, hashtext(${tenantId}))`);
  const [row] = await tx
    .select({ n: count() })
    .from(jobs)
    .where(and(eq(jobs.tenantId, tenantId), inArray(jobs.status, [...ACTIVE_STATUSES])));
  if ((row?.n ?? 0) >= max) throw new ActiveCallsFull(max);
}

/** The first job ahead of `job` in its session that still blocks it (all, or only unsafe ones). */
async function firstBlocker(
  tx: Tx,
  job: Pick<JobRow, "sessionId" | "seq" | "concurrencySafe">,
): Promise<{ id: string } | undefined> {
  const [blocker] = await tx
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(
        eq(jobs.sessionId, job.sessionId),
        lt(jobs.seq, job.seq ?? 0),
        activeJob(jobs.status),
        job.concurrencySafe ? eq(jobs.concurrencySafe, false) : undefined,
      ),
    )
    .orderBy(jobs.seq)
    .limit(1);
  return blocker;
}

/** A CTE that replaces the session's read-cache entries for these files (the last one per file). */
function putReadCache(db: PgDb, sessionId: string, entries: readonly ReadCacheEntry[], now: string) {
  // One row per file: an upsert may not touch a row twice in one statement.
  const last = new Map(entries.map((e) => [e.filePath, e]));
  const rows = [...last.values()].map((e) => readCacheRow(sessionId, e, now));
  return db.$with("put_read_cache").as(
    db
      .insert(readCache)
      .values(rows)
      .onConflictDoUpdate({
        target: [readCache.sessionId, readCache.filePath],
        ...readCacheReplacement(readCache),
      }),
  );
}

/** takeSeq, returning the session row as the update left it (`nextSeq` is the number + 1). */
async function takeSeqAndSession(tx: Tx, sessionId: string): Promise<SessionRow> {
  const [row] = (await tx
    .update(sessions)
    .set({ nextSeq: sql`${sessions.nextSeq} + 1`, lastUsedAt: nowIso() })
    .where(eq(sessions.id, sessionId))
    .returning()) as SessionRow[];
  if (!row) throw new Error(`session ${sessionId} vanished`);
  return row;
}

async function takeSeq(tx: Tx, sessionId: string): Promise<number> {
  const [row] = await tx
    .update(sessions)
    .set({ nextSeq: sql`${sessions.nextSeq} + 1`, lastUsedAt: nowIso() })
    .where(eq(sessions.id, sessionId))
    .returning({ next: sessions.nextSeq });
  if (!row) throw new Error(`session ${sessionId} vanished`);
  return row.next - 1;
}

/** Sets endedAt and outcome on the last attempt while it is still open (jsonb in place). */
function closeLastAttempt(endedAt: string, outcome: string | SQL) {
  return sql`case when jsonb_array_length(coalesce(${jobs.attempts}, '[]'::jsonb)) > 0
    and (${jobs.attempts} -> -1 ->> 'endedAt') is null
    then jsonb_set(jsonb_set(${jobs.attempts}, '{-1,endedAt}', to_jsonb(${endedAt}::text)),
      '{-1,outcome}', to_jsonb(${outcome}::text))
    else ${jobs.attempts} end`;
}

async function rememberRules(tx: Tx, sessionId: string, remember: string[]): Promise<void> {
  if (remember.length === 0) return;
  const [session] = await tx.select().from(sessions).where(eq(sessions.id, sessionId)).for("update");
  if (!session) return;
  const allow = [...new Set([...session.rules.allow, ...remember])];
  await tx
    .update(sessions)
    .set({ rules: { ...session.rules, allow } })
    .where(eq(sessions.id, sessionId));
}

async function writeAudit(tx: Tx, entry: AuditRecord): Promise<void> {
  await tx.insert(audit).values({ id: newId("aud"), ...entry, createdAt: nowIso() });
}

async function findByKey(db: PgDb | Tx, sessionId: string, key: string | undefined) {
  if (!key) return undefined;
  const [row] = await db
    .select()
    .from(jobs)
    .where(and(eq(jobs.sessionId, sessionId), eq(jobs.idempotencyKey, key)));
  return row as JobRow | undefined;
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code === "23505" || e?.cause?.code === "23505";
}
