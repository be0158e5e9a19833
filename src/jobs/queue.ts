/**
 * The BullMQ side of the `JobQueue` port. Without routing (tests, a single queue) every job goes
 * to one queue. With routing (the service), a job goes to its session's host queue while that host
 * is alive, else to the shared placement queue, which any worker with room pulls from. The BullMQ
 * id is the job id in whichever queue holds it; the row stays the source of truth.
 */
import { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { JobQueue } from "../service/ports.js";
import {
  type AnyPayload,
  bullPrefix,
  hostQueueName,
  type JobName,
  PLACEMENT_QUEUE,
  type RunCall,
} from "./catalog.js";
import { scripted } from "./redis-scripts.js";

const RUN_CALL: JobName = "run-call";

export interface CallQueueOptions {
  prefix: string;
  /** Attempts when the sandbox is unavailable (the only retried failure). */
  attempts: number;
  backoffMs: number;
  /** For `missing` (a pipelined look-up BullMQ has no call for); the queue's own connection. */
  connection?: Redis;
  /** Per-host queues; without it every job goes to the one queue given. */
  routing?: Routing;
}

/** How a job finds its queue: the session's host (from the rows) and whether it is alive (Redis). */
export interface Routing {
  hostOf(jobId: string): Promise<string | null>;
  isAlive(hostId: string): Promise<boolean>;
}

/** The queue adapter of the service: per-host queues plus placement (hash-tagged prefix). */
export function createBullQueue(
  connection: Redis,
  cfg: { QUEUE_PREFIX: string; SANDBOX_RETRY_ATTEMPTS: number; SANDBOX_RETRY_BACKOFF_MS: number },
  routing?: Routing,
): BullJobQueue {
  const prefix = bullPrefix(cfg.QUEUE_PREFIX);
  const queue = new Queue<AnyPayload>(PLACEMENT_QUEUE, { connection, prefix });
  // Connection errors are logged once by the connection's owner; BullMQ would print each one.
  queue.on("error", () => {});
  return new BullJobQueue(queue, {
    prefix,
    attempts: cfg.SANDBOX_RETRY_ATTEMPTS,
    backoffMs: cfg.SANDBOX_RETRY_BACKOFF_MS,
    connection,
    ...(routing ? { routing } : {}),
  });
}

export class BullJobQueue implements JobQueue {
  private readonly hostQueues = new Map<string, Queue<AnyPayload>>();

  /** `queue`: the single queue, or the placement queue when routing. */
  constructor(
    readonly queue: Queue<AnyPayload>,
    private readonly opts: CallQueueOptions,
  ) {}

  /** A host's queue (made on first use, closed with `close`). */
  hostQueue(hostId: string): Queue<AnyPayload> {
    let q = this.hostQueues.get(hostId);
    if (!q) {
      q = new Queue<AnyPayload>(hostQueueName(hostId), {
        connection: this.queue.opts.connection as Redis,
        prefix: this.queue.opts.prefix,
      });
      q.on("error", () => {});
      this.hostQueues.set(hostId, q);
    }
    return q;
  }

  /** Where work for `hostId`'s session goes now: its host's queue if alive, else placement. */
  async target(hostId: string | null): Promise<Queue<AnyPayload>> {
    if (!this.opts.routing || !hostId) return this.queue;
    return (await this.opts.routing.isAlive(hostId)) ? this.hostQueue(hostId) : this.queue;
  }

  /** The queues that may hold `jobId` now: its host's (if any) and the placement/single queue. */
  private async holders(jobId: string): Promise<Queue<AnyPayload>[]> {
    const host = await this.opts.routing?.hostOf(jobId);
    return host ? [this.hostQueue(host), this.queue] : [this.queue];
  }

  async enqueue(jobId: string, opts: { priority?: number } = {}): Promise<void> {
    const queue = await this.target((await this.opts.routing?.hostOf(jobId)) ?? null);
    await this.addCall(queue, jobId, opts.priority);
  }

  /** Adds a call to a given queue (placement hands a call to the host it pinned the session to). */
  async addCall(queue: Queue<AnyPayload>, jobId: string, priority?: number): Promise<void> {
    const payload: RunCall = { jobId };
    await queue.add(RUN_CALL, payload, {
      jobId,
      ...(priority ? { priority } : {}),
      attempts: this.opts.attempts,
      backoff: { type: "exponential", delay: this.opts.backoffMs },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  async promote(jobId: string): Promise<void> {
    for (const q of await this.holders(jobId)) {
      const job = await Job.fromId(q, jobId);
      if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
    }
  }

  async discard(jobId: string): Promise<void> {
    for (const q of await this.holders(jobId)) await removeUnlessActive(q, jobId);
  }

  /** The key that stands for a call's queue entry while a process runs it handed off (local-handoff.ts). */
  private leaseKey(jobId: string): string {
    return `${this.queue.opts.prefix}:handoff:${jobId}`;
  }

  /**
   * Deletes the leases in `drop`, then writes those in `hold` for `ms`: one command, one reply
   * (handoff-leases.ts; a pipeline of SETs and DELs measured no less CPU than a command each).
   */
  async writeLeases(hold: readonly string[], drop: readonly string[], ms: number): Promise<void> {
    const keys = [...drop, ...hold].map((id) => this.leaseKey(id));
    await scripted(this.conn()).toolshedLeases(keys.length, ...keys, String(drop.length), String(ms));
  }

  private conn(): Redis {
    return this.opts.connection ?? (this.queue.opts.connection as Redis);
  }

  /**
   * Of `jobIds`, those that have no entry in any queue that may hold them, nor a hand-off lease
   * (one round trip).
   */
  async missing(jobIds: readonly string[]): Promise<string[]> {
    if (jobIds.length === 0) return [];
    if (!this.opts.connection) throw new Error("BullJobQueue.missing needs the connection");
    const pipeline = this.opts.connection.pipeline();
    const holders = await Promise.all(jobIds.map((id) => this.holders(id)));
    jobIds.forEach((id, j) => {
      for (const q of holders[j]!) pipeline.exists(q.toKey(id));
      pipeline.exists(this.leaseKey(id));
    });
    const results = (await pipeline.exec()) ?? [];
    let i = 0;
    return jobIds.filter((_, j) => {
      let found = false;
      for (let k = 0; k <= holders[j]!.length; k++) {
        const [err, n] = results[i++] ?? [new Error("no reply"), 0];
        if (err) throw err;
        if (n !== 0) found = true;
      }
      return !found;
    });
  }

  /**
   * Re-adds a job whose BullMQ entry is gone or finished although its row still expects a run.
   * `lostHost`: the host the job's session was just released from (its sweep). Its queue is no
   * longer a holder (the session is unpinned), but may still hold the call waiting: that entry is
   * removed, else the host, back, would pass it on to the session's new host as a second delivery
   * (a take-over claim of a call still running there). One it holds active stays: its frozen
   * worker's run is fenced (attempt-fence.ts), and the call is queued again here all the same.
   */
  async ensureQueued(jobId: string, priority?: number, lostHost?: string): Promise<boolean> {
    // A live process runs it handed off (the lease expires when that process died).
    if ((await this.conn().exists(this.leaseKey(jobId))) !== 0) return false;
    if (lostHost) await removeUnlessActive(this.hostQueue(lostHost), jobId);
    for (const q of await this.holders(jobId)) {
      const job = await Job.fromId(q, jobId);
      if (!job) continue;
      const state = await job.getState();
      if (state !== "completed" && state !== "failed" && state !== "unknown") return false;
      await job.remove().catch(() => undefined);
    }
    await this.enqueue(jobId, { priority });
    return true;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.hostQueues.values()].map((q) => q.close()));
    await this.queue.close();
  }
}

/** Removes the queue's entry of the job unless a worker holds it (active). */
async function removeUnlessActive(q: Queue<AnyPayload>, jobId: string): Promise<void> {
  const job = await Job.fromId(q, jobId);
  if (job && !(await job.isActive())) await job.remove().catch(() => undefined);
}
