/**
 * The BullMQ worker for tool calls. Ordering within a session is decided by `claimJob` from
 * the job rows; a job that must wait is moved to "delayed" and promoted when its predecessor
 * finishes (a periodic re-check covers a lost promotion). A worker that dies mid-job leaves an
 * active job whose lock expires: BullMQ's stalled-job check puts it back, and the row (still
 * `running`) is claimed and run again by another worker. Each worker serves one host: it consumes
 * that host's queue and pulls placement work (pinning the session to itself) while it has room.
 * A step the database's going away interrupts waits for it and is done again (database-outage.ts).
 */
import { DelayedError, type Job, type Queue, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { isTerminal } from "../contracts/job.js";
import { waitsForDatabase } from "../errors.js";
import { SandboxUnavailableError } from "../sandbox/sandbox.js";
import { fairPriority } from "../service/calls/fair-priority.js";
import { findJob } from "../service/calls/job-view.js";
import type { ServiceDeps } from "../service/ports.js";
import { stdioServerTools } from "../service/sessions/mcp-clients.js";
import { hostOfJob, hostOfSession, placeSession, sessionOfJob } from "../service/sessions/session-hosts.js";
import { claimJob, failJob, giveUpOnSandbox, requeueJob } from "../service/worker/claim-job.js";
import { throughDatabaseOutage } from "../service/worker/database-outage.js";
import { executeJob } from "../service/worker/execute-job.js";
import { jobDeps } from "../service/worker/job-deps.js";
import { cancelRequestedOf, jobsExpectingRun } from "../service/worker/recovery.js";
import { closeWorker } from "./bull-close.js";
import {
  type AnyPayload,
  BadJobPayloadError,
  hostQueueName,
  type ListTools,
  PLACEMENT_QUEUE,
  parseJobPayload,
  RunCall,
} from "./catalog.js";
import type { HostRegistry } from "./host-registry.js";
import { type LocalHandoff, startLocalHandoff } from "./local-handoff.js";
import { startHeartbeat } from "./lost-hosts.js";
import { PlacementWaits } from "./placement-waits.js";
import type { BullJobQueue } from "./queue.js";
import type { RedisBus } from "./redis-bus.js";
import { watchWorkerErrors } from "./worker-errors.js";

export interface CallWorkerOptions {
  /** BullMQ's (hash-tagged) prefix. */
  prefix: string;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  orderRecheckMs: number;
  /** How long a new session's work waits for a host whose Docker engine answers (ENGINE_WAIT_MS). */
  engineWaitMs: number;
  /** How long a stop waits for BullMQ's own close with nothing running (QUEUE_CLOSE_PATIENCE_MS). */
  closePatienceMs: number;
  /** This worker's host: it consumes that host's queue and pulls placement work while it has room. */
  hostId: string;
  hosts: HostRegistry;
  queue: BullJobQueue;
  /** Where answers to an API's requests go (a plain command connection). */
  replies: Redis;
  /** How often the cancel flags of the calls running here are read (a lost cancel message). */
  cancelCheckMs: number;
}

export interface CallWorker {
  workers: Worker<AnyPayload>[];
  /** Runs calls this process's API stored, for sessions pinned here, without the queue (serve mode). */
  handoff: LocalHandoff;
  /** Whether this worker runs the job now (its processor has not returned). */
  runsNow(jobId: string): boolean;
  /** Graceful: waits for running jobs; `force` abandons them to the stalled-job recovery. */
  close(force?: boolean): Promise<void>;
}

export function startCallWorker(
  deps: ServiceDeps,
  connection: Redis,
  bus: RedisBus,
  opts: CallWorkerOptions,
): CallWorker {
  const me = opts.hostId;
  const running = new Map<string, AbortController>();
  const closing = new AbortController();
  const stopCancels = bus.onCancel((jobId) => running.get(jobId)?.abort());
  // The row's flag is the cancel; pub/sub only brings it fast. A message can be missed (this
  // process's subscriber was away) or never sent (the cancelling API could not reach Redis), so
  // the flags of what runs here are read when the subscriber is back and every cancelCheckMs.
  const abortFlagged = () => {
    if (running.size === 0) return;
    cancelRequestedOf(deps.db, [...running.keys()]).then(
      (ids) => {
        for (const id of ids) running.get(id)?.abort();
      },
      (err: unknown) => deps.logger.warn({ err }, "reading cancel flags failed"),
    );
  };
  const stopMissed = bus.onCancelsMissed(abortFlagged);
  const flagCheck = setInterval(abortFlagged, opts.cancelCheckMs);
  flagCheck.unref();
  const stopHeartbeat = startHeartbeat(deps, opts.hosts, opts.hostId, opts.queue);
  const handoff = startLocalHandoff(deps, {
    running,
    concurrency: opts.concurrency,
    queue: opts.queue,
    leaseMs: opts.lockDurationMs,
    closing: closing.signal,
  });

  const runCall = (bjob: Job<AnyPayload>, jobId: string, token?: string): Promise<void> =>
    run(bjob as Job<RunCall>, jobId, token);

  const run = async (bjob: Job<RunCall>, jobId: string, token?: string): Promise<void> => {
    // Listening for cancels before the claim: a cancel sent while the claim is in flight (the
    // row is `running` already, but nothing here listened yet) would otherwise be lost and the
    // command run to its end. One sent before the claim is seen by the claim itself.
    const ac = new AbortController();
    running.set(jobId, ac);
    try {
      const claim = await claimJob(deps, jobId);
      if (claim.kind === "skip") return;
      if (claim.kind === "wait") {
        await bjob.moveToDelayed(Date.now() + opts.orderRecheckMs, token);
        throw new DelayedError();
      }
      // The job's lines carry its id and the trace of the request that submitted it.
      const forJob = jobDeps(deps, claim.job);
      try {
        await executeJob(forJob, claim, ac.signal);
      } catch (err) {
        await onRunError(forJob, bjob, jobId, err);
      }
    } finally {
      // Another delivery of the same job may have registered meanwhile (it lost the claim).
      if (running.get(jobId) === ac) running.delete(jobId);
    }
  };

  /**
   * Whether this host may take placement work as far as its Docker engine goes: it answers (its
   * readiness probe, cached about a second), or the work has waited `engineWaitMs` here (by this
   * host's clock: placement-waits.ts) for a host whose engine does (none has one: it is taken,
   * and fails saying the call did not run).
   */
  const waits = new PlacementWaits(opts.engineWaitMs);
  const engineAnswers = (bjob: Job<AnyPayload>) =>
    waits.over(bjob) ||
    deps.readiness.require(["docker"]).then(
      () => true,
      () => false,
    );

  /** The host queue: work of sessions pinned here; anything pinned elsewhere meanwhile is passed on. */
  const processHost = async (bjob: Job<AnyPayload>, token?: string): Promise<void> => {
    const payload = payloadOf(deps, bjob);
    if (bjob.name === "run-call" && "jobId" in payload) {
      const { jobId } = payload;
      if ((await hostOfJob(deps.db, jobId)) !== me)
        return opts.queue.enqueue(jobId, { priority: await fairPriority(deps.db, jobId) });
      return runCall(bjob, jobId, token);
    }
    if (bjob.name === "list-tools" && "replyTo" in payload) {
      const host = await hostOfSession(deps.db, payload.sessionId);
      if (host !== me && host !== null) return forward(await opts.queue.target(host), bjob);
      return answerListTools(deps, opts.replies, payload);
    }
    if (bjob.name === "remove-sandbox" && "sessionId" in payload) {
      await deps.sandboxes.remove(payload.sessionId);
    }
  };

  /** Placement: pin the session (to this host unless a live one holds it), then hand the work on. */
  const processPlacement = async (bjob: Job<AnyPayload>, token?: string): Promise<void> => {
    const payload = payloadOf(deps, bjob);
    if (running.size >= opts.concurrency || !(await engineAnswers(bjob))) {
      // No room, or this host's Docker engine does not answer (a session pinned here now could
      // not run): leave it to a worker that can take it (or to this one a moment later).
      await bjob.moveToDelayed(Date.now() + 200, token);
      throw new DelayedError();
    }
    waits.done(bjob);
    const sessionId = "jobId" in payload ? await sessionOfJob(deps.db, payload.jobId) : payload.sessionId;
    if (bjob.name === "remove-sandbox") return processHost(bjob, token);
    const seen = sessionId ? await hostOfSession(deps.db, sessionId) : null;
    const alive = seen !== null && seen !== me && (await opts.hosts.isAlive(seen));
    const host = sessionId ? await placeSession(deps.db, sessionId, me, { hostId: seen, alive }) : null;
    if (host === null || (host === me && bjob.name !== "run-call")) return processHost(bjob, token);
    if (host !== me) deps.logger.debug({ sessionId, host }, "placed elsewhere meanwhile");
    else if (seen !== me) deps.logger.info({ sessionId, from: seen }, "session placed on this host");
    if ("jobId" in payload) {
      const { jobId } = payload;
      // Just pinned here: run it now rather than through this host's queue (one queue hop less
      // on a new session's first call; the row's per-session order decides as on the host queue).
      // A retry of such a run (its sandbox was unavailable) stays on this queue entry, so that the
      // call gets SANDBOX_RETRY_ATTEMPTS in all, not those plus a fresh host-queue entry's.
      if (host === me && (seen !== me || bjob.attemptsMade > 0)) return runCall(bjob, jobId, token);
      return opts.queue.addCall(opts.queue.hostQueue(host), jobId, await fairPriority(deps.db, jobId));
    }
    return forward(opts.queue.hostQueue(host), bjob);
  };

  const common = {
    connection,
    prefix: opts.prefix,
    lockDuration: opts.lockDurationMs,
    stalledInterval: opts.stalledIntervalMs,
    maxStalledCount: 2,
  };
  const outageProof =
    (process: (bjob: Job<AnyPayload>, token?: string) => Promise<void>) =>
    (bjob: Job<AnyPayload>, token?: string) =>
      throughDatabaseOutage(deps, () => process(bjob, token), { signal: closing.signal });
  const hostWorker = new Worker<AnyPayload>(hostQueueName(me), outageProof(processHost), {
    ...common,
    concurrency: opts.concurrency,
  });
  // As wide as the host's: a new session's first call runs here (`running` bounds the total).
  const placementWorker = new Worker<AnyPayload>(PLACEMENT_QUEUE, outageProof(processPlacement), {
    ...common,
    concurrency: opts.concurrency,
  });
  const workers = [hostWorker, placementWorker];
  const handlers = new Set<Promise<void>>();
  for (const worker of workers) {
    worker.on("failed", (bjob, err) => {
      // Only a call has a row to settle (a rejected payload names none).
      if (bjob?.name !== "run-call" || !RunCall.safeParse(bjob.data).success) return;
      const p = onQueueFailed(deps, bjob as Job<RunCall>, err).catch((e: unknown) =>
        deps.logger.error({ err: e }, "failed handler"),
      );
      handlers.add(p);
      void p.finally(() => handlers.delete(p));
    });
    watchWorkerErrors(worker, {
      logger: deps.logger,
      connection,
      message: "worker error",
      name: `queue worker ${worker.name}`,
      probeKey: `${opts.prefix}:room-probe`,
      closing: closing.signal,
    });
  }

  return {
    workers,
    handoff,
    runsNow: (jobId) => running.has(jobId),
    async close(force = false) {
      const handedOff = handoff.close(force);
      closing.abort();
      stopCancels();
      stopMissed();
      clearInterval(flagCheck);
      stopHeartbeat();
      const watch = {
        connection,
        busy: () => running.size > 0,
        logger: deps.logger,
        idlePatienceMs: opts.closePatienceMs,
      };
      await Promise.all([...workers.map((w) => closeWorker(w, force, watch)), handedOff]);
      await Promise.allSettled([...handlers]);
    },
  };
}

/**
 * The job's payload checked against the catalog. A job that does not match can never run: it
 * fails at once (no retry) with the reason as its BullMQ failure reason, and no row is touched.
 */
function payloadOf(deps: ServiceDeps, bjob: Job): AnyPayload {
  try {
    return parseJobPayload(bjob.name, bjob.data);
  } catch (err) {
    if (!(err instanceof BadJobPayloadError)) throw err;
    deps.logger.error({ bullJobId: bjob.id, reason: err.message }, "rejected a queued job");
    throw new UnrecoverableError(err.message);
  }
}

/** Another queue takes the job as it is (same name, payload and id). */
async function forward(queue: Queue<AnyPayload>, bjob: Job<AnyPayload>): Promise<void> {
  await queue.add(bjob.name, bjob.data, { jobId: bjob.id, removeOnComplete: true, removeOnFail: true });
}

/** Lists one stdio server's tools in the session's sandbox and pushes the answer to the asker. */
async function answerListTools(deps: ServiceDeps, replies: Redis, req: ListTools): Promise<void> {
  let answer: { tools: unknown[] } | { error: string };
  try {
    answer = { tools: await stdioServerTools(deps.mcp, deps, req.sessionId, req.server) };
  } catch (err) {
    answer = { error: (err as Error).message };
  }
  await replies.multi().lpush(req.replyTo, JSON.stringify(answer)).pexpire(req.replyTo, 60_000).exec();
}

/** A job BullMQ gave up on (stalled too often, retries exhausted) must not stay `running`. */
async function onQueueFailed(deps: ServiceDeps, bjob: Job<RunCall>, err: Error): Promise<void> {
  const state = await bjob.getState();
  const row = await findJob(deps.db, bjob.data.jobId);
  if (state === "failed" && row && !isTerminal(row.status)) {
    deps.logger.warn({ jobId: row.id, err: err.message }, "queue gave up on job");
    await failJob(deps, row.id, "Error: the job could not be completed by a worker; please retry.");
  }
}

async function onRunError(deps: ServiceDeps, bjob: Job<RunCall>, jobId: string, err: unknown): Promise<void> {
  // Not the job's fault: it is done again once the database is back (the row cannot change now).
  if (waitsForDatabase(err)) throw err;
  if (err instanceof SandboxUnavailableError) {
    deps.metrics.inc("toolshed_sandbox_retries_total");
    if (bjob.attemptsMade + 1 < (bjob.opts.attempts ?? 1)) {
      deps.logger.warn({ jobId, err: err.message }, "sandbox unavailable; retrying");
      await requeueJob(deps, jobId);
      throw err;
    }
    await giveUpOnSandbox(deps, jobId, err.message);
    throw new UnrecoverableError(err.message);
  }
  deps.logger.error({ err, jobId }, "job failed unexpectedly");
  await failJob(deps, jobId, `Error: internal error while running the job (job ${jobId}).`);
  throw new UnrecoverableError("internal error");
}

/** At start: rows that expect a run but whose queue entry is gone are queued again. */
export async function recoverJobs(deps: ServiceDeps, queue: BullJobQueue): Promise<number> {
  let n = 0;
  for (const id of await jobsExpectingRun(deps.db))
    if (await queue.ensureQueued(id, await fairPriority(deps.db, id))) n++;
  return n;
}
