/**
 * The leases of a process's handed-off runs (local-handoff.ts), written by one timer for all of
 * them: each tick sends, in one Redis round trip, the leases that came due (a run that has lasted
 * LEASE_AFTER_MS, or one whose lease is half-way to expiring) and the deletions of the leases of
 * runs that ended. Under load (50 sessions on two cores) nearly every run outlasts LEASE_AFTER_MS,
 * and a timer, a SET and a DEL per run were each its own round trip; now a run costs a map entry,
 * and a tick's round trip is shared by the runs of that tick (NOTES-tput28.md).
 *
 * What a lease promises is unchanged: a reconciler (any process) looks at a running row without a
 * queue entry twice, 250 ms apart, before it acts; a run's lease is written at most LEASE_TICK_MS
 * after it came due, far below that. A lease outlives its run by at most a tick (it stood for a
 * job that is finished, or queued again, by then): a reconciler that meets it looks again later.
 */
import type { BullJobQueue } from "./queue.js";

/** How long a run goes before its lease is written (far below the reconciler's 250 ms). */
export const LEASE_AFTER_MS = 50;
/** How often the leases due are written; a lease is written at most this late. */
export const LEASE_TICK_MS = 25;

export interface HandoffLeasesOptions {
  queue: Pick<BullJobQueue, "writeLeases">;
  /** The queue's lock duration: how long a lease outlives a process that died. */
  leaseMs: number;
  /** A tick's write failed (Redis away): the runs' leases are tried again at the next tick. */
  onError: (err: unknown) => void;
}

/** One run's lease: when its run started, and when its lease was last written. */
interface Lease {
  jobId: string;
  since: number;
  written?: number;
}

export class HandoffLeases {
  private readonly live = new Map<string, Lease>();
  /** Leases written for runs that have ended: deleted at the next tick. */
  private ended: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly renewMs: number;

  constructor(private readonly opts: HandoffLeasesOptions) {
    this.renewMs = Math.max(1000, opts.leaseMs / 2);
  }

  /** A run starts: its lease is written once it has lasted LEASE_AFTER_MS. Returns its end. */
  start(jobId: string): () => void {
    const lease: Lease = { jobId, since: Date.now() };
    this.live.set(jobId, lease);
    // A lease of an earlier run of this job, still to be deleted, now stands for this one.
    if (this.ended.length > 0) this.ended = this.ended.filter((id) => id !== jobId);
    this.timer ??= setInterval(() => this.tick(), LEASE_TICK_MS).unref();
    return () => {
      if (this.live.get(jobId) !== lease) return;
      this.live.delete(jobId);
      if (lease.written !== undefined) this.ended.push(jobId);
    };
  }

  private tick(): void {
    const now = Date.now();
    const hold: string[] = [];
    for (const lease of this.live.values()) {
      const due =
        lease.written === undefined
          ? now - lease.since >= LEASE_AFTER_MS
          : now - lease.written >= this.renewMs;
      if (!due) continue;
      lease.written = now;
      hold.push(lease.jobId);
    }
    const drop = this.ended;
    this.ended = [];
    if (hold.length > 0 || drop.length > 0) {
      this.opts.queue.writeLeases(hold, drop, this.opts.leaseMs).catch((err: unknown) => {
        // Written again at the next tick: a lease is only known written once Redis said so.
        for (const id of hold) {
          const lease = this.live.get(id);
          if (lease?.written === now) lease.written = undefined;
        }
        this.opts.onError(err);
      });
    }
    if (this.live.size === 0 && this.ended.length === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
