/**
 * Reconciliation all the time, not only at start: job rows that expect a run (`queued`,
 * `running`) but have no queue entry — Redis restarted without its data, an enqueue lost — are
 * queued again (a job this process is running is left to it; one another worker runs is claimed
 * again, and the claim re-attaches to the call rather than run it twice). A pass looks at a
 * bounded batch of rows (one pipelined EXISTS per batch) and walks the table with a cursor, so
 * a large backlog costs the same per pass; passes run every `intervalMs`, and back to back over
 * the whole table when Redis comes back.
 */
import { fairPriority } from "../service/calls/fair-priority.js";
import type { ServiceDeps } from "../service/ports.js";
import { expectingRunElsewhere, jobsExpectingRunAfter } from "../service/worker/recovery.js";
import { workerIdentity } from "../service/worker/worker-identity.js";
import type { BullJobQueue } from "./queue.js";

export interface ReconcilerOptions {
  intervalMs: number;
  /** Rows looked at per pass. */
  batch: number;
  /** How long a call that seems gone gets to show up before it is queued again (default 250 ms). */
  settleMs?: number;
  /** Whether this process's worker runs the job now (default: whatever its attempt says). */
  runsNow?: (jobId: string) => boolean;
}

export interface Reconciler {
  /** One pass over the next batch; returns the jobs queued again. */
  pass(): Promise<{ requeued: number; wrapped: boolean }>;
  /** A full sweep now (e.g. Redis is back), pass after pass until the cursor wraps. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

export function startReconciler(
  deps: Pick<ServiceDeps, "db" | "logger" | "metrics">,
  queue: Pick<BullJobQueue, "missing" | "enqueue">,
  opts: ReconcilerOptions,
): Reconciler {
  let cursor = "";
  let current: Promise<unknown> = Promise.resolve();
  let stopped = false;

  const runPass = async () => {
    const ids = await jobsExpectingRunAfter(deps.db, cursor, opts.batch);
    const wrapped = ids.length < opts.batch;
    cursor = wrapped ? "" : ids.at(-1)!;
    const missing = await queue.missing(ids);
    // Looked at again: a job may have finished (and left the queue) meanwhile. One this very
    // process is running is left to it: its own end settles the row.
    let still = await expectingRunElsewhere(deps.db, missing, workerIdentity(), opts.runsNow);
    if (still.length > 0) {
      // A call in passage seems gone for a moment: a submit between its row and its queue entry,
      // placement handing it to its host's queue (pin, add there, leave placement). Look again a
      // little later, where it should be by then (holders follow the session's host).
      await new Promise((r) => setTimeout(r, opts.settleMs ?? 250));
      still = await expectingRunElsewhere(
        deps.db,
        await queue.missing(still),
        workerIdentity(),
        opts.runsNow,
      );
    }
    for (const id of still) await queue.enqueue(id, { priority: await fairPriority(deps.db, id) });
    if (still.length > 0) {
      deps.metrics.inc("toolshed_jobs_reconciled_total", {}, still.length);
      deps.logger.warn({ requeued: still.length }, "re-queued jobs whose queue entry was gone");
    }
    return { requeued: still.length, wrapped };
  };

  // Passes never overlap: each waits for the one before.
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = current.then(fn, fn);
    current = next.catch(() => undefined);
    return next;
  };
  const pass = () => serial(runPass);
  const sweep = () =>
    serial(async () => {
      cursor = "";
      let total = 0;
      for (;;) {
        const { requeued, wrapped } = await runPass();
        total += requeued;
        if (wrapped || stopped) return total;
      }
    });

  const timer = setInterval(() => {
    pass().catch((err: unknown) => deps.logger.debug({ err }, "reconcile pass failed (Redis away?)"));
  }, opts.intervalMs);
  timer.unref();
  return {
    pass,
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
