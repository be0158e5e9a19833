/**
 * In-process hand-off (serve mode: API and worker in one process). A call this process's API is
 * storing, for a session pinned to this process's worker, runs here at once when the worker has
 * a free slot, instead of going through BullMQ's add and pick-up (a few dozen Redis commands and
 * a blocking move per call). Nothing else changes:
 *  - the row is the truth: the insert claims it in its own transaction (JobStore.insertClaimed),
 *    with the checks of a claim (the session active and pinned here, no earlier conflicting call
 *    of the session queued or running); a call that must wait for an earlier one of its session
 *    is stored `queued` and goes to the queue as before, and is promoted there;
 *  - while it runs (from 50 ms on: most calls end before), a lease key with the queue's lock
 *    duration stands for its queue entry (`BullJobQueue.missing` and `ensureQueued` count it),
 *    renewed at half that: no reconciler, in any process, queues it again behind this one's back;
 *  - a crash after the insert lets the lease expire: the `running` row is queued again and taken
 *    over as after a stalled BullMQ job (a built-in tool runs again in the same executor
 *    instance, which re-attaches or runs what never started; any other tool ends `interrupted`,
 *    as after any claim: service/worker/takeover.ts).
 */
import { waitsForDatabase } from "../errors.js";
import { SandboxUnavailableError } from "../sandbox/sandbox.js";
import { fairPriority } from "../service/calls/fair-priority.js";
import type { CallHandoff, ServiceDeps } from "../service/ports.js";
import { type Claim, claimJob, failJob, requeueJob } from "../service/worker/claim-job.js";
import { throughDatabaseOutage } from "../service/worker/database-outage.js";
import { executeJob } from "../service/worker/execute-job.js";
import { jobDeps } from "../service/worker/job-deps.js";
import { workerIdentity } from "../service/worker/worker-identity.js";
import { HandoffLeases } from "./handoff-leases.js";
import type { BullJobQueue } from "./queue.js";

/** A run's end: the row as it is then. */
type Ended = NonNullable<ReturnType<CallHandoff["ended"]>>;
type EndRow = Awaited<Ended>;

export interface LocalHandoff extends CallHandoff {
  /** No more hand-offs; resolves when those running have ended (`force`: at once). */
  close(force?: boolean): Promise<void>;
}

export interface LocalHandoffOptions {
  /** The worker's running calls (its cancel bus aborts them; its slots count them). */
  running: Map<string, AbortController>;
  concurrency: number;
  queue: Pick<BullJobQueue, "enqueue" | "writeLeases">;
  /** The queue's lock duration: how long a lease outlives a process that died. */
  leaseMs: number;
  /** Aborted when the worker closes (a step waiting for the database gives up). */
  closing: AbortSignal;
}

export function startLocalHandoff(deps: ServiceDeps, opts: LocalHandoffOptions): LocalHandoff {
  /** Each run: `run` resolves when it is over, `end` once its final row is stored (or it is over). */
  const runs = new Map<string, { run: Ended; end: Ended }>();
  let closed = false;
  // Only this hand-off's own entry: a queue delivery of the same job (queued again for a retry
  // while this run was ending) registers its own, which its cancels must still reach.
  const release = (jobId: string, ac: AbortController) => {
    if (opts.running.get(jobId) === ac) opts.running.delete(jobId);
  };
  // A run's lease (written once it has lasted a while, renewed, deleted at its end: see
  // handoff-leases.ts) keeps a reconciler in any process from queueing it again behind this
  // one's back. Most calls end sooner and never write one. This process's own reconciler leaves
  // the run alone regardless (it is in `running`).
  const leases = new HandoffLeases({
    queue: opts.queue,
    leaseMs: opts.leaseMs,
    onError: (err) => deps.logger.debug({ err }, "hand-off leases not written"),
  });

  const execute = async (
    jobId: string,
    claim: Extract<Claim, { kind: "run" }>,
    ac: AbortController,
    endLease: () => void,
    onStored: (row: NonNullable<EndRow>) => void,
  ): Ended => {
    let final: Awaited<Ended>;
    // A step the database's going away interrupted is done again as the queue's worker does it:
    // claimed anew (the row is `running` by this attempt), so that the take-over check decides
    // whether the tool runs again (re-attach, or interrupted), never the stale claim.
    let first: Claim | undefined = claim;
    // The job's lines carry its id and the trace of the request that submitted it.
    const forJob = jobDeps(deps, claim.job);
    const step = async () => {
      const current = first ?? (await claimJob(forJob, jobId));
      first = undefined;
      return current.kind === "run" ? executeJob(forJob, current, ac.signal, onStored) : undefined;
    };
    try {
      final = await throughDatabaseOutage(forJob, step, { signal: opts.closing }).catch((err: unknown) =>
        onError(forJob, jobId, err),
      );
    } finally {
      endLease();
      release(jobId, ac);
    }
    // The row this run stored, or as it is now (a transfer, a retry queued elsewhere).
    return final ?? (await deps.store.findJob(jobId).catch(() => undefined));
  };

  // As the queue's worker does, except that a sandbox that is away is retried through the queue.
  const onError = async (deps: ServiceDeps, jobId: string, err: unknown): Promise<undefined> => {
    // Given up waiting for the database (or closing): the row stays `running`; once the lease
    // expires, the reconciler queues it again and its take-over re-attaches or interrupts it.
    if (waitsForDatabase(err)) return undefined;
    if (err instanceof SandboxUnavailableError) {
      deps.metrics.inc("toolshed_sandbox_retries_total");
      deps.logger.warn({ jobId, err: err.message }, "sandbox unavailable; queued for a retry");
      await requeueJob(deps, jobId);
      await opts.queue.enqueue(jobId, { priority: await fairPriority(deps.db, jobId) });
      return undefined;
    }
    deps.logger.error({ err, jobId }, "job failed unexpectedly");
    await failJob(deps, jobId, `Error: internal error while running the job (job ${jobId}).`);
    return undefined;
  };

  return {
    reserve(jobId, sessionId) {
      if (closed || opts.running.size >= opts.concurrency || !deps.hostId) return undefined;
      // Listening for cancels before the row exists, as the queue's worker does before its claim.
      const ac = new AbortController();
      opts.running.set(jobId, ac);
      const endLease = leases.start(jobId);
      let settled = false;
      const sandbox = deps.sandboxes.knownInstance?.(sessionId);
      return {
        claim: {
          worker: workerIdentity(),
          hostId: deps.hostId,
          ...(sandbox ? { sandbox } : {}),
        },
        run(claim) {
          if (settled) return;
          settled = true;
          // A waiter hears the final row once it is stored (the run then still sends its events
          // and wakes its successors); otherwise whatever the run ends with.
          let answer: (row: EndRow) => void = () => {};
          const end: Ended = new Promise((resolve) => (answer = resolve));
          const run = execute(jobId, claim, ac, endLease, answer).catch((err: unknown) => {
            deps.logger.error({ err, jobId }, "handed-off job failed");
            return undefined;
          });
          void run.then(answer);
          runs.set(jobId, { run, end });
          void run.finally(() => runs.delete(jobId));
        },
        release() {
          if (settled) return;
          settled = true;
          endLease();
          release(jobId, ac);
        },
      };
    },
    ended: (jobId) => runs.get(jobId)?.end,
    async close(force = false) {
      closed = true;
      if (!force) await Promise.allSettled([...runs.values()].map((r) => r.run));
    },
  };
}
