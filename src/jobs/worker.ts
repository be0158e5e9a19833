/**
 * The BullMQ worker for tool calls. Ordering within a session is decided by `claimJob` from
 * the job rows; a job that must wait is moved to "delayed" and promoted when its predecessor
 * finishes (a periodic re-check covers a lost promotion). A worker that dies mid-job leaves an
 * active job whose lock expires: BullMQ's stalled-job check puts it back, and the row (still
 * `running`) is claimed and run again by another worker. Each worker serves one host: it consumes
 * that host's queue and pulls placement work (pinning the session to itself) while it has room.
 */
import { DelayedError, type Job, type Queue, UnrecoverableError, Worker } from "bullmq";
import { inArray } from "drizzle-orm";
import type { Redis } from "ioredis";
import { preparedFor } from "../db/prepared.js";
import { jobs } from "../db/schema.js";
import { SandboxUnavailableError } from "../sandbox/sandbox.js";
import { startApprovalSweeper } from "../service/calls/approval-expiry.js";
import { fairPriority } from "../service/calls/fair-priority.js";
import { findJob, isTerminal } from "../service/calls/job-view.js";
import type { ServiceDeps } from "../service/ports.js";
import { stdioServerTools } from "../service/sessions/mcp-clients.js";
import { hostOfJob, hostOfSession, placeSession, sessionOfJob } from "../service/sessions/session-hosts.js";
import { claimJob, failJob, requeueJob } from "../service/worker/claim-job.js";
import { executeJob } from "../service/worker/execute-job.js";
import {
  type AnyPayload,
  hostQueueName,
  ListTools,
  PLACEMENT_QUEUE,
  RemoveSandbox,
  RunCall,
} from "./catalog.js";
import type { HostRegistry } from "./host-registry.js";
import { startHeartbeat } from "./lost-hosts.js";
import type { BullJobQueue } from "./queue.js";
import type { RedisBus } from "./redis-bus.js";

export interface CallWorkerOptions {
  /** BullMQ's (hash-tagged) prefix. */
  prefix: string;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  orderRecheckMs: number;
  /** How often pending approvals past their expiry are denied (default 5 s). */
  approvalSweepMs?: number;
  /** This worker's host: it consumes that host's queue and pulls placement work while it has room. */
  hostId: string;
  hosts: HostRegistry;
  queue: BullJobQueue;
  /** Where answers to an API's requests go (a plain command connection). */
  replies: Redis;
}

export interface CallWorker {
  workers: Worker<AnyPayload>[];
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
  const stopCancels = bus.onCancel((jobId) => running.get(jobId)?.abort());
  // Expiry lives with the worker so that every deployment (serve or a separate worker) runs it.
  const stopSweeper = startApprovalSweeper(deps, opts.approvalSweepMs ?? 5000);
  const stopHeartbeat = startHeartbeat(deps, opts.hosts, opts.hostId, opts.queue);

  const runCall = async (bjob: Job<AnyPayload>, jobId: string, token?: string): Promise<void> => {
    const claim = await claimJob(deps, jobId);
    if (claim.kind === "skip") return;
    if (claim.kind === "wait") {
      await bjob.moveToDelayed(Date.now() + opts.orderRecheckMs, token);
      throw new DelayedError();
    }
    const ac = new AbortController();
    running.set(jobId, ac);
    try {
      await executeJob(deps, claim, ac.signal);
    } catch (err) {
      await onRunError(deps, bjob as Job<RunCall>, jobId, err);
    } finally {
      running.delete(jobId);
    }
  };

  /** The host queue: work of sessions pinned here; anything pinned elsewhere meanwhile is passed on. */
  const processHost = async (bjob: Job<AnyPayload>, token?: string): Promise<void> => {
    if (bjob.name === "run-call") {
      const { jobId } = RunCall.parse(bjob.data);
      if (hostOfJob(deps.db, jobId) !== me)
        return opts.queue.enqueue(jobId, { priority: fairPriority(deps.db, jobId) });
      return runCall(bjob, jobId, token);
    }
    if (bjob.name === "list-tools") {
      const req = ListTools.parse(bjob.data);
      const host = hostOfSession(deps.db, req.sessionId);
      if (host !== me && host !== null) return forward(await opts.queue.target(host), bjob);
      return answerListTools(deps, opts.replies, req);
    }
    if (bjob.name === "remove-sandbox") {
      await deps.sandboxes.remove(RemoveSandbox.parse(bjob.data).sessionId);
    }
  };

  /** Placement: pin the session (to this host unless a live one holds it), then hand the work on. */
  const processPlacement = async (bjob: Job<AnyPayload>, token?: string): Promise<void> => {
    if (running.size >= opts.concurrency) {
      // No room: leave it to a worker that has some (or to this one a moment later).
      await bjob.moveToDelayed(Date.now() + 200, token);
      throw new DelayedError();
    }
    const sessionId =
      bjob.name === "run-call"
        ? sessionOfJob(deps.db, RunCall.parse(bjob.data).jobId)
        : (bjob.data as ListTools | RemoveSandbox).sessionId;
    if (bjob.name === "remove-sandbox") return processHost(bjob, token);
    const seen = sessionId ? hostOfSession(deps.db, sessionId) : null;
    const alive = seen !== null && seen !== me && (await opts.hosts.isAlive(seen));
    const host = sessionId ? placeSession(deps.db, sessionId, me, { hostId: seen, alive }) : null;
    if (host === null || (host === me && bjob.name !== "run-call")) return processHost(bjob, token);
    if (host !== me) deps.logger.debug({ sessionId, host }, "placed elsewhere meanwhile");
    else if (seen !== me) deps.logger.info({ sessionId, from: seen }, "session placed on this host");
    if (bjob.name === "run-call") {
      const { jobId } = RunCall.parse(bjob.data);
      return opts.queue.addCall(opts.queue.hostQueue(host), jobId, fairPriority(deps.db, jobId));
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
  const hostWorker = new Worker<AnyPayload>(hostQueueName(me), processHost, {
    ...common,
    concurrency: opts.concurrency,
  });
  const placementWorker = new Worker<AnyPayload>(PLACEMENT_QUEUE, processPlacement, {
    ...common,
    concurrency: Math.min(4, opts.concurrency),
  });
  const workers = [hostWorker, placementWorker];
  const handlers = new Set<Promise<void>>();
  for (const worker of workers) {
    worker.on("failed", (bjob, err) => {
      if (bjob?.name !== "run-call" || !RunCall.safeParse(bjob.data).success) return;
      const p = onQueueFailed(deps, bjob as Job<RunCall>, err).catch((e: unknown) =>
        deps.logger.error({ err: e }, "failed handler"),
      );
      handlers.add(p);
      void p.finally(() => handlers.delete(p));
    });
    worker.on("error", (err) => deps.logger.error({ err }, "worker error"));
  }

  return {
    workers,
    async close(force = false) {
      stopCancels();
      stopSweeper();
      stopHeartbeat();
      await Promise.all(workers.map((w) => w.close(force)));
      await Promise.allSettled([...handlers]);
    },
  };
}

/** Another queue takes the job as it is (same name, payload and id). */
async function forward(queue: Queue<AnyPayload>, bjob: Job<AnyPayload>): Promise<void> {
  await queue.add(bjob.name, bjob.data, { jobId: bjob.id, removeOnComplete: true, removeOnFail: true });
}

/** Lists one stdio server's tools in the session's sandbox and pushes the answer to the asker. */
async function answerListTools(deps: ServiceDeps, replies: Redis, req: ListTools): Promise<void> {
  const session = preparedFor(deps.db).sessionById.get({ id: req.sessionId });
  let answer: { tools: unknown[] } | { error: string };
  try {
    answer = session ? { tools: await stdioServerTools(deps.mcp, deps, session, req.server) } : { tools: [] };
  } catch (err) {
    answer = { error: (err as Error).message };
  }
  await replies.multi().lpush(req.replyTo, JSON.stringify(answer)).pexpire(req.replyTo, 60_000).exec();
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
