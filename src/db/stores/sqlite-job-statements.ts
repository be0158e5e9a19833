/**
 * The SQLite job store's statements on a call's path, prepared once per database: drizzle
 * otherwise builds each statement's SQL on every call, which cost more CPU than running it
 * (claim, attempt, finish, queue position, successors and audit: ~0.5 ms of a warm call).
 * Values reach them as placeholders; each column's own encoder still applies (JSON columns).
 */
import { type AnyColumn, and, count, eq, exists, getTableColumns, gt, lt, Param, sql } from "drizzle-orm";
import type { Db } from "../db.js";
import { activeJob, queuedJob } from "../job-predicates.js";
import { perDatabase } from "../prepared.js";
import { audit, jobs, sessions } from "../schema.js";

const p = sql.placeholder;

/** A placeholder for an update's SET, encoded as `column` encodes (JSON columns as JSON). */
function into(column: AnyColumn, name: string) {
  return sql`${new Param(p(name), column)}`;
}

/** SQL that sets endedAt and outcome on the last attempt still open (JSON in place, one statement). */
export function closeLastAttempt(endedAt: unknown, outcome: unknown) {
  return sql`case when json_array_length(coalesce(${jobs.attempts}, '[]')) > 0
    and json_extract(${jobs.attempts}, '$[#-1].endedAt') is null
    then json_set(${jobs.attempts}, '$[#-1].endedAt', ${endedAt}, '$[#-1].outcome', ${outcome})
    else ${jobs.attempts} end`;
}

/** A job ahead of `seq` in the session that still blocks a job (all, or only unsafe ones). */
function blocker(db: Db, onlyUnsafe: boolean) {
  return (
    db
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(
          eq(jobs.sessionId, p("sessionId")),
          lt(jobs.seq, p("seq")),
          activeJob(jobs.status),
          onlyUnsafe ? eq(jobs.concurrencySafe, false) : undefined,
        ),
      )
      // Any one blocker will do (the claim only waits), so no ORDER BY: SQLite then seeks the
      // partial index of the calls not yet over (jobs_active_idx) to the session's few. Ordered
      // by seq it walked (session, seq) over every earlier job of the session (O(calls) per
      // claim), and ordered after the seek (`+seq`) it paid a sorter per claim (~15x this).
      // No LIMIT: `get` steps once. Drizzle binds a limit as a parameter, and SQLite (3.53, STAT4)
      // plans with a bound LIMIT's value, so each run re-prepared the statement (~5x its cost).
      .prepare()
  );
}

/**
 * busyBefore, in one statement: a job ahead of `seq` in the session still
 * blocks, or the tenant's queued + running jobs are `maxActive` or more (no row: no session).
 */
function busyOrFull(db: Db) {
  const ahead = db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.sessionId, p("sessionId")), lt(jobs.seq, p("seq")), activeJob(jobs.status)));
  const active = db
    .select({ n: count() })
    .from(jobs)
    .where(and(eq(jobs.tenantId, p("tenantId")), activeJob(jobs.status)));
  return db
    .select({ busy: sql<number>`${exists(ahead)} or (${active}) >= ${p("maxActive")}` })
    .from(sessions)
    .where(eq(sessions.id, p("sessionId")))
    .prepare();
}

/** The finish's status: `cancelled` for a job flagged for cancellation when `cancelWins` is 1. */
const finalStatus = sql`case when ${p("cancelWins")} = 1 and ${jobs.cancelRequested} = 1 then 'cancelled' else ${p("status")} end`;

function build(db: Db) {
  return {
    // Every column a placeholder of its own name: a whole JobRow is the statement's parameters.
    insertJob: db
      .insert(jobs)
      .values(Object.fromEntries(Object.keys(getTableColumns(jobs)).map((k) => [k, p(k)])) as never)
      .prepare(),
    blockedByAny: blocker(db, false),
    blockedByUnsafe: blocker(db, true),
    busyOrFull: busyOrFull(db),
    claim: db
      .update(jobs)
      .set({
        status: "running",
        startedAt: into(jobs.startedAt, "startedAt"),
        runs: sql`${jobs.runs} + 1`,
        attempts: into(jobs.attempts, "attempts"),
        hostId: into(jobs.hostId, "hostId"),
      })
      .where(eq(jobs.id, p("id")))
      .prepare(),
    attemptSandbox: db
      .update(jobs)
      .set({ attempts: sql`json_set(${jobs.attempts}, '$[#-1].sandbox', ${p("sandbox")})` })
      .where(
        and(
          eq(jobs.id, p("id")),
          eq(jobs.status, "running"),
          eq(jobs.runs, p("run")),
          sql`json_array_length(coalesce(${jobs.attempts}, '[]')) > 0`,
        ),
      )
      .prepare(),
    finish: db
      .update(jobs)
      .set({
        status: finalStatus,
        result: into(jobs.result, "result"),
        finishedAt: into(jobs.finishedAt, "now"),
        error: into(jobs.error, "error"),
        attempts: closeLastAttempt(p("now"), finalStatus),
      })
      .where(
        sql`${jobs.id} = ${p("id")} and ${jobs.status} not in ('succeeded','failed','denied','cancelled','interrupted') and (${p("run")} is null or ${jobs.runs} = ${p("run")})`,
      )
      // Whether a call of the session took a queue position after this one (laterCalls): exact
      // here, as no other writer, in any process, runs between this statement's read and write.
      .returning({
        ...getTableColumns(jobs),
        laterCalls:
          sql<boolean>`(select ${sessions.nextSeq} from ${sessions} where ${sessions.id} = ${jobs.sessionId}) > coalesce(${jobs.seq}, 0) + 1`.mapWith(
            Boolean,
          ),
      })
      .prepare(),
    takeSeq: db
      .update(sessions)
      .set({ nextSeq: sql`${sessions.nextSeq} + 1`, lastUsedAt: into(sessions.lastUsedAt, "now") })
      .where(eq(sessions.id, p("sessionId")))
      .returning({ next: sessions.nextSeq })
      .prepare(),
    // takeSeq only while the session's next position is still `seq`, it is active and pinned to
    // `hostId` (insertFinished): no row when any of that changed.
    takeSeqIfUnchanged: db
      .update(sessions)
      .set({ nextSeq: sql`${sessions.nextSeq} + 1`, lastUsedAt: into(sessions.lastUsedAt, "now") })
      .where(
        and(
          eq(sessions.id, p("sessionId")),
          eq(sessions.nextSeq, p("seq")),
          eq(sessions.status, "active"),
          eq(sessions.hostId, p("hostId")),
        ),
      )
      .returning({ next: sessions.nextSeq })
      .prepare(),
    // takeSeq for an insert that claims its row: the session as this transaction sees it comes
    // back with the number (its status and pin decide the claim), instead of a read of its own.
    takeSeqAndSession: db
      .update(sessions)
      .set({ nextSeq: sql`${sessions.nextSeq} + 1`, lastUsedAt: into(sessions.lastUsedAt, "now") })
      .where(eq(sessions.id, p("sessionId")))
      .returning()
      .prepare(),
    queuedAfter: db
      .select({ id: jobs.id, safe: jobs.concurrencySafe })
      .from(jobs)
      .where(
        and(
          eq(jobs.sessionId, p("sessionId")),
          activeJob(jobs.status),
          queuedJob(jobs.status),
          gt(jobs.seq, p("seq")),
        ),
      )
      .orderBy(jobs.seq)
      .limit(p("limit"))
      .prepare(),
    audit: db
      .insert(audit)
      .values({
        id: p("id"),
        tenantId: p("tenantId"),
        sessionId: p("sessionId"),
        jobId: p("jobId"),
        kind: p("kind"),
        actorKeyId: p("actorKeyId"),
        data: p("data"),
        createdAt: p("createdAt"),
      })
      .prepare(),
  };
}

/** The statements of `db`, prepared on first use. */
export const jobStatementsFor = perDatabase(build);
