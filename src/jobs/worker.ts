/**
 * The BullMQ worker for tool calls. Ordering within a session is decided by `claimJob` from
 * the job rows; a job that must wait is moved to "delayed" and promoted when its predecessor
 * finishes (a periodic re-check covers a lost promotion). A worker that dies mid-job leaves an
 * active job whose lock expires: BullMQ's stalled-job check puts it back, and the row (still
 * `running`) is claimed and run again by another worker.
 */
import { DelayedError, type Job, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { isTerminal } from "../contracts/job.js";
import { withLogContext } from "../log.js";
import { SandboxUnavailableError } from "../sandbox/sandbox.js";
import { fairPriority } from "../service/calls/fair-priority.js";
import { findJob } from "../service/calls/job-view.js";
import type { ServiceDeps } from "../service/ports.js";
import { claimJob, failJob, requeueJob } from "../service/worker/claim-job.js";
import { executeJob } from "../service/worker/execute-job.js";
import { jobsExpectingRun } from "../service/worker/recovery.js";
import { BadJobPayloadError, CALLS_QUEUE, parseJobPayload, RunCall } from "./catalog.js";
import type { BullJobQueue } from "./queue.js";
import type { RedisBus } from "./redis-bus.js";

export interface CallWorkerOptions {
  prefix: string;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  orderRecheckMs: number;
}

export interface CallWorker {
  worker: Worker<RunCall>;
  /** Graceful: waits for running jobs; `force` abandons them to the stalled-job recovery. */
  close(force?: boolean): Promise<void>;
}

export function startCallWorker(
  deps: ServiceDeps,
  connection: Redis,
  bus: RedisBus,
  opts: CallWorkerOptions,
): CallWorker {
  const running = new Map<string, AbortController>();
  const stopCancels = bus.onCancel((jobId) => running.get(jobId)?.abort());

  const process = (bjob: Job<RunCall>, token?: string): Promise<void> => {
    const { jobId } = payloadOf(deps, bjob);
    return withLogContext({ jobId }, () => run(bjob, jobId, token));
  };

  const run = async (bjob: Job<RunCall>, jobId: string, token?: string): Promise<void> => {
    const claim = await claimJob(deps, jobId);
    if (claim.kind === "skip") return;
    if (claim.kind === "wait") {
      await bjob.moveToDelayed(Date.now() + opts.orderRecheckMs, token);
      throw new DelayedError();
    }
    const ac = new AbortController();
    running.set(jobId, ac);
    // The job's lines carry the trace of the request that submitted it.
    const traceId = claim.job.traceId ?? undefined;
    try {
      await withLogContext({ traceId }, async () => {
        try {
          await executeJob(deps, claim, ac.signal);
        } catch (err) {
          await onRunError(deps, bjob, jobId, err);
        }
      });
    } finally {
      running.delete(jobId);
    }
  };

  const worker = new Worker<RunCall>(CALLS_QUEUE, process, {
    connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    lockDuration: opts.lockDurationMs,
    stalledInterval: opts.stalledIntervalMs,
    maxStalledCount: 2,
  });
  const handlers = new Set<Promise<void>>();
  worker.on("failed", (bjob, err) => {
    // A rejected payload names no row to settle.
    if (!bjob || !RunCall.safeParse(bjob.data).success) return;
    const p = onQueueFailed(deps, bjob, err).catch((e: unknown) =>
      deps.logger.error({ err: e }, "failed handler"),
    );
    handlers.add(p);
    void p.finally(() => handlers.delete(p));
  });
  worker.on("error", (err) => deps.logger.error({ err }, "worker error"));

  return {
    worker,
    async close(force = false) {
      stopCancels();
      await worker.close(force);
      await Promise.allSettled([...handlers]);
    },
  };
}

/**
 * The job's payload checked against the catalog. A job that does not match can never run: it
 * fails at once (no retry) with the reason as its BullMQ failure reason, and no row is touched.
 */
function payloadOf(deps: ServiceDeps, bjob: Job): RunCall {
  try {
    const payload = parseJobPayload(bjob.name, bjob.data);
    if (!("jobId" in payload))
      throw new BadJobPayloadError(`job "${bjob.name}" does not belong in the calls queue`);
    return payload;
  } catch (err) {
    if (!(err instanceof BadJobPayloadError)) throw err;
    deps.logger.error({ bullJobId: bjob.id, reason: err.message }, "rejected a queued job");
    throw new UnrecoverableError(err.message);
  }
}

/** A job BullMQ gave up on (stalled too often, retries exhausted) must not stay `running`. */
async function onQueueFailed(deps: ServiceDeps, bjob: Job<RunCall>, err: Error): Promise<void> {
  const state = await bjob.getState();
  const row = findJob(deps.db, bjob.data.jobId);
  if (state === "failed" && row && !isTerminal(row.status)) {
    deps.logger.warn({ jobId: row.id, err: err.message }, "queue gave up on job");
    await failJob(deps, row.id, "Error: the job could not be completed by a worker; please retry.");
  }
}

async function onRunError(deps: ServiceDeps, bjob: Job<RunCall>, jobId: string, err: unknown): Promise<void> {
  if (err instanceof SandboxUnavailableError) {
    deps.metrics.inc("toolshed_sandbox_retries_total");
    if (bjob.attemptsMade + 1 < (bjob.opts.attempts ?? 1)) {
      deps.logger.warn({ jobId, err: err.message }, "sandbox unavailable; retrying");
      await requeueJob(deps, jobId);
      throw err;
    }
    await failJob(deps, jobId, `Error: the session's sandbox is unavailable: ${err.message}`);
    throw new UnrecoverableError(err.message);
  }
  deps.logger.error({ err, jobId }, "job failed unexpectedly");
  await failJob(deps, jobId, `Error: internal error while running the job (job ${jobId}).`);
  throw new UnrecoverableError("internal error");
}

/** At start: rows that expect a run but whose queue entry is gone are queued again. */
export async function recoverJobs(deps: ServiceDeps, queue: BullJobQueue): Promise<number> {
  let n = 0;
  for (const id of jobsExpectingRun(deps.db))
    if (await queue.ensureQueued(id, fairPriority(deps.db, id))) n++;
  return n;
}
