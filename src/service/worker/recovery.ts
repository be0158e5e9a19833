/**
 * The job rows that expect a run (`queued`, `running`): what the worker's start-up recovery and
 * the reconciler compare with the queue. The queue side (BullMQ) stays in src/jobs; the rows
 * are read here, so that src/jobs runs no query of its own.
 */
import { and, asc, eq, gt, inArray } from "drizzle-orm";
import { type Db, tablesOf } from "../../db/db.js";
import { activeJob } from "../../db/job-predicates.js";

/** Ids of every job that expects a run. */
export async function jobsExpectingRun(db: Db): Promise<string[]> {
  const { jobs } = tablesOf(db);
  const rows = await db.select({ id: jobs.id }).from(jobs).where(activeJob(jobs.status));
  return rows.map((r) => r.id);
}

/** Up to `limit` ids of jobs that expect a run, after `cursor` in id order (a walk in batches). */
export async function jobsExpectingRunAfter(db: Db, cursor: string, limit: number): Promise<string[]> {
  const { jobs } = tablesOf(db);
  const rows = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(activeJob(jobs.status), gt(jobs.id, cursor)))
    .orderBy(asc(jobs.id))
    .limit(limit);
  return rows.map((r) => r.id);
}

/**
 * Of `ids`, those that still expect a run and that worker `me` is not running now (its own end
 * settles such a row, so it must not be queued again behind its back). `runsNow` says whether
 * `me` still runs a job its open attempt names: one it gave up on (the database was away too
 * long to store its end) is queued again, and its take-over re-attaches or interrupts it.
 */
export async function expectingRunElsewhere(
  db: Db,
  ids: readonly string[],
  me: string,
  runsNow: (jobId: string) => boolean = () => true,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const { jobs } = tablesOf(db);
  const rows = await db
    .select({ id: jobs.id, status: jobs.status, attempts: jobs.attempts })
    .from(jobs)
    .where(and(inArray(jobs.id, [...ids]), activeJob(jobs.status)));
  return rows
    .filter((row) => {
      const last = row.attempts?.at(-1);
      return !(row.status === "running" && last && !last.endedAt && last.worker === me && runsNow(row.id));
    })
    .map((r) => r.id);
}

/** Of `ids`, those whose cancel was requested and that have not ended (a missed cancel message). */
export async function cancelRequestedOf(db: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { jobs } = tablesOf(db);
  const rows = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(inArray(jobs.id, [...ids]), activeJob(jobs.status), eq(jobs.cancelRequested, true)));
  return rows.map((r) => r.id);
}
