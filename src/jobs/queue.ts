/** The BullMQ side of the `JobQueue` port: one queue of `run-call` jobs whose id is the job id. */
import { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { JobQueue } from "../service/ports.js";
import { CALLS_QUEUE, type JobName, type RunCall } from "./catalog.js";

const RUN_CALL: JobName = "run-call";

export interface CallQueueOptions {
  prefix: string;
  /** Attempts when the sandbox is unavailable (the only retried failure). */
  attempts: number;
  backoffMs: number;
  /** For `missing` (a pipelined look-up BullMQ has no call for); the queue's own connection. */
  connection?: Redis;
}

/** The queue adapter, configured from the service settings. */
export function createBullQueue(
  connection: Redis,
  cfg: { QUEUE_PREFIX: string; SANDBOX_RETRY_ATTEMPTS: number; SANDBOX_RETRY_BACKOFF_MS: number },
): BullJobQueue {
  const queue = new Queue<RunCall>(CALLS_QUEUE, { connection, prefix: cfg.QUEUE_PREFIX });
  // Connection errors are logged once by the connection's owner; BullMQ would print each one.
  queue.on("error", () => {});
  return new BullJobQueue(queue, {
    prefix: cfg.QUEUE_PREFIX,
    attempts: cfg.SANDBOX_RETRY_ATTEMPTS,
    backoffMs: cfg.SANDBOX_RETRY_BACKOFF_MS,
    connection,
  });
}

export class BullJobQueue implements JobQueue {
  constructor(
    readonly queue: Queue<RunCall>,
    private readonly opts: CallQueueOptions,
  ) {}

  async enqueue(jobId: string, opts: { priority?: number } = {}): Promise<void> {
    const payload: RunCall = { jobId };
    await this.queue.add(RUN_CALL, payload, {
      jobId,
      ...(opts.priority ? { priority: opts.priority } : {}),
      attempts: this.opts.attempts,
      backoff: { type: "exponential", delay: this.opts.backoffMs },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  async promote(jobId: string): Promise<void> {
    const job = await Job.fromId(this.queue, jobId);
    if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
  }

  async discard(jobId: string): Promise<void> {
    const job = await Job.fromId(this.queue, jobId);
    if (job && !(await job.isActive())) await job.remove().catch(() => undefined);
  }

  /** Of `jobIds`, those that have no entry in the queue at all (one round trip). */
  async missing(jobIds: readonly string[]): Promise<string[]> {
    if (jobIds.length === 0) return [];
    if (!this.opts.connection) throw new Error("BullJobQueue.missing needs the connection");
    const pipeline = this.opts.connection.pipeline();
    for (const id of jobIds) pipeline.exists(this.queue.toKey(id));
    const results = (await pipeline.exec()) ?? [];
    return jobIds.filter((_, i) => {
      const [err, n] = results[i] ?? [new Error("no reply"), 0];
      if (err) throw err;
      return n === 0;
    });
  }

  /** Re-adds a job whose BullMQ entry is gone or finished although its row still expects a run. */
  async ensureQueued(jobId: string, priority?: number): Promise<boolean> {
    const job = await Job.fromId(this.queue, jobId);
    if (job) {
      const state = await job.getState();
      if (state !== "completed" && state !== "failed" && state !== "unknown") return false;
      await job.remove().catch(() => undefined);
    }
    await this.enqueue(jobId, { priority });
    return true;
  }
}
