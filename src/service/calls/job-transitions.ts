/** Putting a job in its session's queue order and handing it to the queue. */

import { isTerminal } from "../../contracts/job.js";
import type { JobRow, JobStatus, StoredResult } from "../../db/rows.js";
import type { FinishedJob, FinishOptions } from "../../db/store.js";
import { asUnavailable, UnavailableError } from "../../errors.js";
import type { Logger } from "../../log.js";
import type { JobEventInput, ServiceDeps } from "../ports.js";
import { recordWebhookEvents } from "../webhooks/record-events.js";
import { fairPriority } from "./fair-priority.js";

/**
 * Enqueues a job that was `queued` before this request (an approved call). If the queue is
 * away the row stays `queued`: the reconciler queues it once Redis answers again.
 */
export async function enqueueOrReconcile(deps: Pick<ServiceDeps, "db" | "queue" | "logger">, jobId: string) {
  try {
    await deps.queue.enqueue(jobId, { priority: await fairPriority(deps.db, jobId) });
  } catch (err) {
    deps.logger.warn({ err, jobId }, "enqueue failed; the reconciler will queue the job");
  }
}

/**
 * Enqueues a job created by this request. If the queue refuses, the job and its audit entry are
 * withdrawn and the caller gets 503 UNAVAILABLE: nothing was created. Unless a worker already
 * claimed it (the add reached Redis after all): then it runs and is answered as usual. Or unless
 * the withdrawal fails too (the database busy or gone): the job stays stored and queued, the
 * reconciler queues it, and it is answered as accepted; a 503 would have the client send a
 * second one.
 */
export async function enqueueOrWithdraw(
  deps: Pick<ServiceDeps, "db" | "store" | "queue" | "logger" | "readiness">,
  jobId: string,
) {
  try {
    const priority = await fairPriority(deps.db, jobId);
    await deps.readiness.bound("redis", deps.queue.enqueue(jobId, { priority }));
  } catch (err) {
    const withdrawn = await deps.store.withdrawQueued(jobId).catch((withdrawErr: unknown) => {
      deps.logger.warn(
        { err: withdrawErr, jobId },
        "enqueue and withdrawal failed; the reconciler will queue the job",
      );
      return false;
    });
    deps.logger.warn({ err, jobId, withdrawn }, "enqueue failed");
    if (withdrawn)
      throw asUnavailable(err) ?? new UnavailableError("the job could not be queued; retry shortly");
  }
}

/**
 * Stores a final status and result, unless the job already reached a final status; the running
 * attempt (if any) is closed with the same outcome. The row as stored; undefined when it was
 * already final.
 */
export function finishJob(
  deps: Pick<ServiceDeps, "store">,
  jobId: string,
  status: JobStatus,
  result: StoredResult,
  opts?: FinishOptions,
): Promise<FinishedJob | undefined> {
  return deps.store.finish(jobId, status, result, opts);
}

/**
 * Appends the job's status (and result when final) to its event stream, tells the tenant's
 * watchers (approvals stream) and records the tenant's webhook deliveries; never throws.
 */
export async function publishState(
  deps: Pick<ServiceDeps, "events" | "logger" | "store"> & Partial<Pick<ServiceDeps, "db" | "webhooks">>,
  jobId: string,
) {
  const row = await deps.store.findJob(jobId);
  if (row) await publishRow(deps, row);
}

/**
 * publishState for a row the caller just read: the events are handed to the bus before this
 * returns its promise, so an append or enqueue the caller issues next goes out after them.
 * `earlier`: statuses the row went through unpublished (an insert that claimed its row stored it
 * `running` at once): their events go first, in the same write.
 */
export function publishRow(
  deps: Pick<ServiceDeps, "events" | "logger"> & Partial<Pick<ServiceDeps, "db" | "webhooks">>,
  row: JobRow,
  earlier: readonly JobStatus[] = [],
): Promise<void> {
  return publishEvents(deps, row, [...earlier.map(statusEvent), ...rowEvents(row)], earlier);
}

/** A status event. */
export const statusEvent = (status: JobStatus): JobEventInput => ({ type: "status", data: { status } });

/** The events of a row's status: the status, and the result once final. */
export function rowEvents(row: JobRow): JobEventInput[] {
  const events = [statusEvent(row.status)];
  if (row.result && isTerminal(row.status))
    events.push({ type: "result", data: { status: row.status, result: row.result } });
  return events;
}

/**
 * publishRow with its events given: `events` (in order, ending with the row's own, rowEvents)
 * in one write, with the tenant's notice of the row's status; `passed`: statuses among them the
 * row went through before, logged as transitions too; `held`: the write held back
 * (JobEvents.publishStatus), the webhook records made once it is sent. Never throws.
 */
export async function publishEvents(
  deps: Pick<ServiceDeps, "events" | "logger"> & Partial<Pick<ServiceDeps, "db" | "webhooks">>,
  row: JobRow,
  events: JobEventInput[],
  passed: readonly JobStatus[] = [],
  opts: { held?: boolean } = {},
): Promise<void> {
  const jobId = row.id;
  for (const status of passed) logTransition(deps.logger, { ...row, status });
  logTransition(deps.logger, row);
  try {
    await deps.events.publishStatus(jobId, row.tenantId, row.status, events, opts);
  } catch (err) {
    deps.logger.warn({ err, jobId }, "publishing job events failed");
  }
  // After the events, so that waiters are not held up by it; recorded even when Redis is away
  // (the row stays pending and a worker start queues it).
  try {
    // The delivery rows live in the service database (not behind the job store).
    if (deps.db) await recordWebhookEvents({ ...deps, db: deps.db }, row);
  } catch (err) {
    deps.logger.warn({ err, jobId }, "recording webhook deliveries failed");
  }
}

/** The job-transition log line: which job, whose, which tool, the status it reached, its trace. */
export function logTransition(
  logger: Logger,
  row: Pick<JobRow, "id" | "tenantId" | "sessionId" | "tool" | "status" | "traceId">,
): void {
  const { id: jobId, tenantId, sessionId, tool, status } = row;
  logger.info(
    { jobId, tenantId, sessionId, tool, status, traceId: row.traceId ?? undefined },
    "job transition",
  );
}
