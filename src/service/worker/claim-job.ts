/**
 * The worker's verbs. `claimJob` enforces per-session ordering from the job rows (the source
 * of truth): a job may start only when no earlier-queued job of its session that conflicts
 * with it is still queued or running. Unsafe calls conflict with everything, safe calls only
 * with unsafe ones. The check depends only on *earlier* jobs, which only move forward, so once
 * a job may start it stays startable, and concurrent workers cannot deadlock.
 * A `run` claim has not published its `running` status yet: `executeJob` does, off the
 * critical path.
 */

import type { JobRow } from "../../db/rows.js";
import type { FinishedJob, StoreClaim } from "../../db/store.js";
import { auditKeys, writeAudit } from "../calls/audit.js";
import { finishJob, logTransition, publishRow, publishState } from "../calls/job-transitions.js";
import { cancelledResult, textResult } from "../calls/job-view.js";
import type { ServiceDeps } from "../ports.js";
import { interruptedText } from "./takeover.js";
import { workerIdentity } from "./worker-identity.js";

export type Claim = StoreClaim;

/**
 * A job BullMQ hands over may be `running` already: its worker died and the stalled-job check
 * gave it to this one (or recovery queued it again). BullMQ's lock lets one worker hold a job
 * at a time, so a claim here may take such a job over (the take-over check decides whether
 * it runs again).
 */
export async function claimJob(deps: ServiceDeps, jobId: string): Promise<Claim> {
  const claim = await deps.store.claim(jobId, {
    worker: workerIdentity(),
    takeOver: true,
    ...(deps.hostId ? { hostId: deps.hostId } : {}),
  });
  if (claim.kind === "skip" && claim.reason === "cancelled") {
    // An earlier attempt may have started it (its sandbox went away mid-run, as when the session
    // is deleted): cancelledResult says so.
    const runs = (await deps.store.findJob(jobId))?.runs ?? 0;
    if (await finishJob(deps, jobId, "cancelled", cancelledResult(runs))) await publishState(deps, jobId);
  }
  return claim;
}

/** A job that could not run this time goes back to `queued` (it keeps its place). */
export async function requeueJob(
  deps: Pick<ServiceDeps, "store" | "logger">,
  jobId: string,
  why = "retry",
): Promise<void> {
  await deps.store.requeue(jobId, why);
  const row = await deps.store.findJob(jobId);
  if (row?.status === "queued") logTransition(deps.logger, row);
}

/** Records which sandbox instance attempt `run` uses; false: the job is no longer that attempt's. */
export function recordAttemptSandbox(
  deps: Pick<ServiceDeps, "store">,
  jobId: string,
  sandbox: string,
  run: number,
): Promise<boolean> {
  return deps.store.recordAttemptSandbox(jobId, sandbox, run);
}

/**
 * Fails a job for a reason outside the tool (the message is safe to show); the final row when
 * this stored it.
 */
export async function failJob(
  deps: ServiceDeps,
  jobId: string,
  message: string,
): Promise<JobRow | undefined> {
  const final = await finishJob(deps, jobId, "failed", textResult(message, "error"), { error: message });
  if (final) {
    deps.metrics.jobFinished("failed", final);
    await publishRow(deps, final);
  }
  await wakeSuccessors(deps, final ?? jobId);
  return final;
}

/**
 * Ends a call whose sandbox stayed unavailable through every retry (the Docker engine down, the
 * container gone). An attempt that reached a sandbox (its instance is recorded before the first
 * operation is sent) may have partly run a call with side effects: that one is `interrupted`,
 * never a plain failure the caller could read as "nothing happened". Any other did not run.
 */
export async function giveUpOnSandbox(
  deps: ServiceDeps,
  jobId: string,
  reason: string,
): Promise<JobRow | undefined> {
  const row = await deps.store.findJob(jobId);
  const sideEffects = row && row.decision.readOnly !== true && !row.concurrencySafe;
  if (!sideEffects || !row.attempts?.some((a) => a.sandbox !== undefined))
    return failJob(
      deps,
      jobId,
      `Error: the session's sandbox is unavailable (${reason}): the call did not run. Retry it once the service reports ready (GET /readyz).`,
    );
  const text = interruptedText(`its sandbox became unavailable while it ran: ${reason}`);
  const final = await finishJob(deps, jobId, "interrupted", textResult(text, "interrupted"), {
    error: reason,
  });
  if (final) {
    deps.metrics.jobFinished("interrupted", final);
    const data = { outcome: "interrupted", why: reason };
    await writeAudit(deps.db, { ...auditKeys(final), kind: "attempt", actorKeyId: null, data });
    deps.logger.warn({ jobId, why: reason }, "job interrupted, not run again");
    await publishRow(deps, final);
  }
  await wakeSuccessors(deps, final ?? jobId);
  return final;
}

/**
 * Wakes the session's jobs that may start now that `job` (a row, or its id) finished: the next
 * queued job, and when it is concurrency-safe, the safe ones right after it. Others stay
 * delayed (no stampede). A finish that saw no later call of the session (`laterCalls` false)
 * has none to wake: a call queued after it commits sees it finished and is not held by it.
 */
export async function wakeSuccessors(
  deps: ServiceDeps,
  finished: string | (Pick<JobRow, "sessionId" | "seq"> & Partial<Pick<FinishedJob, "laterCalls">>),
): Promise<void> {
  const job = typeof finished === "string" ? await deps.store.findJob(finished) : finished;
  if (!job || job.seq === null) return;
  if ("laterCalls" in job && job.laterCalls === false) return;
  const next = await deps.store.queuedAfter(job.sessionId, job.seq, 32);
  const firstUnsafe = next.findIndex((n) => !n.safe);
  const wake =
    firstUnsafe === 0 ? next.slice(0, 1) : next.slice(0, firstUnsafe === -1 ? next.length : firstUnsafe);
  await Promise.all(wake.map((n) => deps.queue.promote(n.id).catch(() => undefined)));
}
