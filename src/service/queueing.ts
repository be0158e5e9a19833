/** Putting a job in its session's queue order and handing it to the queue. */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/open.js";
import { type JobStatus, jobs, type StoredResult, sessions } from "../db/schema.js";
import type { ServiceDeps } from "./deps.js";
import { fairPriority } from "./fair-priority.js";
import { nowIso } from "./ids.js";
import { findJob, isTerminal } from "./job-view.js";

export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The session's next queue position; a job's `seq` is given when it enters the queue. */
export function takeSeq(tx: Tx | Db, sessionId: string): number {
  const row = tx
    .update(sessions)
    .set({ nextSeq: sql`${sessions.nextSeq} + 1`, lastUsedAt: nowIso() })
    .where(eq(sessions.id, sessionId))
    .returning({ next: sessions.nextSeq })
    .get();
  if (!row) throw new Error(`session ${sessionId} vanished`);
  return row.next - 1;
}

/** Enqueues a job already marked `queued`; if the queue refuses, the job fails clearly. */
export async function enqueueOrFail(deps: Pick<ServiceDeps, "db" | "queue" | "logger">, jobId: string) {
  try {
    await deps.queue.enqueue(jobId, { priority: fairPriority(deps.db, jobId) });
  } catch (err) {
    deps.logger.error({ err, jobId }, "enqueue failed");
    finishJob(deps.db, jobId, "failed", {
      content: [{ type: "text", text: "Error: the job could not be queued; please retry." }],
      state: "error",
    });
    throw err;
  }
}

/**
 * Stores a final status and result, unless the job already reached a final status; the running
 * attempt (if any) is closed with the same outcome.
 */
export function finishJob(
  db: Db,
  jobId: string,
  status: JobStatus,
  result: StoredResult,
  error?: string,
): boolean {
  const now = nowIso();
  const res = db
    .update(jobs)
    .set({ status, result, finishedAt: now, error: error ?? null, attempts: closeLastAttempt(now, status) })
    .where(
      sql`${jobs.id} = ${jobId} and ${jobs.status} not in ('succeeded','failed','denied','cancelled','interrupted')`,
    )
    .run();
  return res.changes > 0;
}

/** SQL that sets endedAt and outcome on the last attempt still open (JSON in place, one statement). */
export function closeLastAttempt(endedAt: string, outcome: string) {
  return sql`case when json_array_length(coalesce(${jobs.attempts}, '[]')) > 0
    and json_extract(${jobs.attempts}, '$[#-1].endedAt') is null
    then json_set(${jobs.attempts}, '$[#-1].endedAt', ${endedAt}, '$[#-1].outcome', ${outcome})
    else ${jobs.attempts} end`;
}

/** Appends the job's status (and result when final) to its event stream; never throws. */
export async function publishState(deps: Pick<ServiceDeps, "events" | "logger" | "db">, jobId: string) {
  const row = findJob(deps.db, jobId);
  if (!row) return;
  try {
    const events: { type: "status" | "result"; data: unknown }[] = [
      { type: "status", data: { status: row.status } },
    ];
    if (row.result && isTerminal(row.status)) {
      events.push({ type: "result", data: { status: row.status, result: row.result } });
    }
    await deps.events.append(jobId, ...events);
  } catch (err) {
    deps.logger.warn({ err, jobId }, "publishing job events failed");
  }
}
