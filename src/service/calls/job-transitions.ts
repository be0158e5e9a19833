/** Putting a job in its session's queue order and handing it to the queue. */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/open.js";
import { audit, type JobStatus, jobs, type StoredResult, sessions } from "../../db/schema.js";
import { asUnavailable, UnavailableError } from "../../errors.js";
import { nowIso } from "../clock.js";
import type { ServiceDeps } from "../ports.js";
import { recordWebhookEvents } from "../webhooks/record-events.js";
import { fairPriority } from "./fair-priority.js";
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

/**
 * Enqueues a job that was `queued` before this request (an approved call). If the queue is
 * away the row stays `queued`: the reconciler queues it once Redis answers again.
 */
export async function enqueueOrReconcile(deps: Pick<ServiceDeps, "db" | "queue" | "logger">, jobId: string) {
  try {
    await deps.queue.enqueue(jobId, { priority: fairPriority(deps.db, jobId) });
  } catch (err) {
    deps.logger.warn({ err, jobId }, "enqueue failed; the reconciler will queue the job");
  }
}

/**
 * Enqueues a job created by this request. If the queue refuses, the job and its audit entry are
 * withdrawn and the caller gets 503 UNAVAILABLE: nothing was created. Unless a worker already
 * claimed it (the add reached Redis after all): then it runs and is answered as usual.
 */
export async function enqueueOrWithdraw(
  deps: Pick<ServiceDeps, "db" | "queue" | "logger" | "readiness">,
  jobId: string,
) {
  try {
    await deps.readiness.bound(
      "redis",
      deps.queue.enqueue(jobId, { priority: fairPriority(deps.db, jobId) }),
    );
  } catch (err) {
    const withdrawn = deps.db.transaction((tx) => {
      const gone = tx
        .delete(jobs)
        .where(and(eq(jobs.id, jobId), eq(jobs.status, "queued")))
        .run();
      if (gone.changes > 0) tx.delete(audit).where(eq(audit.jobId, jobId)).run();
      return gone.changes > 0;
    });
    deps.logger.warn({ err, jobId, withdrawn }, "enqueue failed");
    if (withdrawn)
      throw asUnavailable(err) ?? new UnavailableError("the job could not be queued; retry shortly");
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

/**
 * Appends the job's status (and result when final) to its event stream, tells the tenant's
 * watchers (approvals stream) and records the tenant's webhook deliveries; never throws.
 */
export async function publishState(
  deps: Pick<ServiceDeps, "events" | "logger" | "db"> & Pick<Partial<ServiceDeps>, "webhooks">,
  jobId: string,
) {
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
    await deps.events.notifyTenant(row.tenantId, { jobId, status: row.status });
  } catch (err) {
    deps.logger.warn({ err, jobId }, "publishing job events failed");
  }
  // After the events, so that waiters are not held up by it; recorded even when Redis is away
  // (the row stays pending and a worker start queues it).
  try {
    await recordWebhookEvents(deps, row);
  } catch (err) {
    deps.logger.warn({ err, jobId }, "recording webhook deliveries failed");
  }
}
