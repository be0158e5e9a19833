/**
 * The BullMQ worker for tool calls. Ordering within a session is decided by `claimJob` from
 * the job rows; a job that must wait is moved to "delayed" and promoted when its predecessor
 * finishes (a periodic re-check covers a lost promotion). A worker that dies mid-job leaves an
 * active job whose lock expires: BullMQ's stalled-job check puts it back, and the row (still
 * `running`) is claimed and run again by another worker.
 */
import { DelayedError, type Job, UnrecoverableError, Worker } from "bullmq";
import { inArray } from "drizzle-orm";
import type { Redis } from "ioredis";
import { jobs } from "../db/schema.js";
import { withLogContext } from "../log.js";
import { SandboxUnavailableError } from "../sandbox/sandbox.js";
import { startApprovalSweeper } from "../service/calls/approval-expiry.js";
import { fairPriority } from "../service/calls/fair-priority.js";
import { findJob, isTerminal } from "../service/calls/job-view.js";
import type { ServiceDeps } from "../service/ports.js";
import { claimJob, failJob, requeueJob } from "../service/worker/claim-job.js";
import { executeJob } from "../service/worker/execute-job.js";
import { CALLS_QUEUE, RunCall } from "./catalog.js";
import type { BullJobQueue } from "./queue.js";
import type { RedisBus } from "./redis-bus.js";

export interface CallWorkerOptions {
  prefix: string;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  orderRecheckMs: number;
  /** How often pending approvals past their expiry are denied (default 5 s). */
  approvalSweepMs?: number;
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
  // Expiry lives with the worker so that every deployment (serve or a separate worker) runs it.
  const stopSweeper = startApprovalSweeper(deps, opts.approvalSweepMs ?? 5000);

  const process = (bjob: Job<RunCall>, token?: string): Promise<void> => {
    const { jobId } = RunCall.parse(bjob.data);
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
      stopSweeper();
      await worker.close(force);
      await Promise.allSettled([...handlers]);
    },
  };
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
      requeueJob(deps, jobId);
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
  const rows = deps.db
    .select({ id: jobs.id })
    .from(jobs)
    .where(inArray(jobs.status, ["queued", "running"]))
    .all();
  let n = 0;
  for (const row of rows) if (await queue.ensureQueued(row.id, fairPriority(deps.db, row.id))) n++;
  return n;
}
