/**
 * The fence of a run's writes: a worker that lost its job (frozen or cut off, its host declared
 * lost, the job taken over elsewhere) must not act on it any more. Each write a run makes outside
 * its own result (its first sandbox operation, the session's cwd, its active groups) lands only
 * while the job is still `running` the attempt the run claimed (`runs`).
 */
import { and, eq, exists, sql } from "drizzle-orm";
import { type Db, first, type Tables, tablesOf } from "../../db/db.js";
import type { Logger } from "../../log.js";

/** The attempt a run holds: its job and the `runs` its claim made. */
export interface RunAttempt {
  jobId: string;
  run: number;
}

/** The condition on a row of `jobs` (the handle's table): the job is still `running` this attempt. */
export function heldBy(jobs: Tables["jobs"], a: RunAttempt) {
  return and(eq(jobs.id, a.jobId), eq(jobs.runs, a.run), eq(jobs.status, "running"));
}

/** SQL true while the job is still `running` this attempt. */
export function attemptHolds(db: Db, a: RunAttempt) {
  const { jobs } = tablesOf(db);
  return exists(db.select({ one: sql`1` }).from(jobs).where(heldBy(jobs, a)));
}

/** Whether the job is still `running` this attempt now (one SELECT). */
export async function attemptStillHeld(db: Db, a: RunAttempt): Promise<boolean> {
  const { jobs } = tablesOf(db);
  const row = await first(db.select({ id: jobs.id }).from(jobs).where(heldBy(jobs, a)).limit(1));
  return row !== undefined;
}

/** Says that a run stopped short because another attempt holds its job (`what` it did not do). */
export function logSuperseded(logger: Logger, a: RunAttempt, what: string): void {
  logger.warn(
    { jobId: a.jobId, run: a.run },
    `attempt superseded: another worker took the job over; ${what}`,
  );
}
