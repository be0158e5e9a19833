/**
 * Retention: rows that are over (finished jobs, ended sessions, old audit entries, revoked keys,
 * settled webhook deliveries, expired console sign-outs) are deleted once past their retention,
 * off the request path, in small batches with a pause between them (SQLite has one writer: a
 * call's write then waits for one small batch at most). Every batch is idempotent
 * (prune-batches.ts), so every worker host may run a pruner; a failed pass (database down, disk
 * full) is logged and the next interval tries again.
 */
import type { Config } from "../../config.js";
import { TERMINAL } from "../../contracts/job.js";
import type { Db } from "../../db/db.js";
import { dbNow } from "../../db/db-clock.js";
import type { ServiceDeps } from "../ports.js";
import { SIGNOUT_KEPT_PAST_EXPIRY_MS } from "../tenancy/console-sessions.js";
import {
  type Batch,
  type Cursor,
  type PruneKind,
  pruneAudit,
  pruneDeliveries,
  pruneJobs,
  pruneRevokedKeys,
  pruneSessions,
  pruneSignouts,
  tenantIds,
} from "./prune-batches.js";

/** How long each kind is kept once over, in days (0: forever), and how a pass paces itself. */
export interface RetentionSettings {
  jobDays: number;
  auditDays: number;
  sessionDays: number;
  revokedKeyDays: number;
  deliveryDays: number;
  /** Rows per transaction. */
  batch: number;
  /** Least pause between two batches (ms); it is also at least 19 times the batch's own time. */
  pauseMs: number;
}

export function retentionSettings(config: Config): RetentionSettings {
  return {
    jobDays: config.JOB_RETENTION_DAYS,
    auditDays: config.AUDIT_RETENTION_DAYS,
    sessionDays: config.SESSION_RETENTION_DAYS,
    revokedKeyDays: config.REVOKED_KEY_RETENTION_DAYS,
    deliveryDays: config.WEBHOOK_DELIVERY_RETENTION_DAYS,
    batch: config.PRUNE_BATCH,
    pauseMs: config.PRUNE_PAUSE_MS,
  };
}

const DAY_MS = 86_400_000;
/** A pass pauses this many times a batch's own time after it (at most ~1/20 of the process). */
const PAUSE_FACTOR = 19;
/** A batch longer than this (ms) halves the next one's size. */
const BATCH_TARGET_MS = 2;
export type PruneCounts = Partial<Record<PruneKind, number>>;

/** Why a pass stops early: the service is stopping. */
export interface PassControl {
  stopped(): boolean;
}

/**
 * One pass over every kind, in this order: jobs before sessions (a session goes only once its
 * jobs are gone). Returns the rows deleted by kind (kinds with none are left out).
 */
export async function prunePass(
  db: Db,
  s: RetentionSettings,
  now: Date,
  control: PassControl = { stopped: () => false },
): Promise<PruneCounts> {
  const counts: PruneCounts = {};
  const cutoff = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();
  // At least `pauseMs`, and PAUSE_FACTOR times as long as the batch took: a pass takes at most
  // ~1/20 of the process's time (a SQLite batch holds the event loop) whatever the rows weigh.
  const pause = (batchMs: number) =>
    new Promise((r) => setTimeout(r, Math.max(s.pauseMs, PAUSE_FACTOR * batchMs)));
  /**
   * Batches of one walk until it is done (or the service stops), pausing after each that wrote.
   * The batch size adapts (up to `s.batch`, carried from walk to walk): halved after a batch
   * longer than BATCH_TARGET_MS (rows of MiBs), doubled back after a short one, so that no batch
   * holds the loop for long.
   */
  let size = s.batch;
  const walk = async (kind: PruneKind, batch: (limit: number, from?: Cursor) => Promise<Batch>) => {
    let from: Cursor | undefined;
    for (;;) {
      if (control.stopped()) return;
      const started = performance.now();
      const b = await batch(size, from);
      const ms = performance.now() - started;
      if (b.deleted > 0) {
        counts[kind] = (counts[kind] ?? 0) + b.deleted;
        await pause(ms);
      }
      if (ms > BATCH_TARGET_MS) size = Math.max(1, Math.floor(size / 2));
      else if (ms < BATCH_TARGET_MS / 2) size = Math.min(s.batch, size * 2);
      if (!b.more) return;
      from = b.next;
    }
  };
  const tenants = await tenantIds(db);
  for (const tenantId of tenants) {
    if (s.jobDays > 0)
      for (const status of TERMINAL)
        await walk("jobs", (n, from) => pruneJobs(db, tenantId, status, cutoff(s.jobDays), n, from));
    if (s.sessionDays > 0)
      await walk("sessions", (n) => pruneSessions(db, tenantId, cutoff(s.sessionDays), n));
    if (s.auditDays > 0) await walk("audit", (n) => pruneAudit(db, tenantId, cutoff(s.auditDays), n));
    if (s.deliveryDays > 0)
      await walk("webhook_deliveries", (n, from) =>
        pruneDeliveries(db, tenantId, cutoff(s.deliveryDays), n, from),
      );
  }
  if (s.revokedKeyDays > 0) await walk("api_keys", (n) => pruneRevokedKeys(db, cutoff(s.revokedKeyDays), n));
  const signoutCutoff = new Date(now.getTime() - SIGNOUT_KEPT_PAST_EXPIRY_MS).toISOString();
  await walk("console_signouts", (n) => pruneSignouts(db, signoutCutoff, n));
  return counts;
}

export interface Pruner {
  /**
   * One pass now (passes never overlap), by the database's clock when started (`now` overrides
   * it: a test's later time); resolves with what it deleted.
   */
  pass(now?: Date): Promise<PruneCounts>;
  stop(): Promise<void>;
}

export interface PrunerOptions {
  intervalMs: number;
  /**
   * Whether this process may prune this interval (a Redis `SET NX` per interval, so that with
   * several hosts one of them prunes at a time); absent: always. The batches are idempotent,
   * so two pruners at once (a lease outlived by a long pass) only repeat work.
   */
  lease?: () => Promise<boolean>;
}

/** Runs a pass every `intervalMs` (the first one interval after start) until stopped. */
export function startPruner(
  deps: Pick<ServiceDeps, "db" | "logger" | "metrics">,
  settings: RetentionSettings,
  opts: PrunerOptions,
): Pruner {
  let current: Promise<unknown> = Promise.resolve();
  let stopped = false;
  /** Passes queued or running: a tick while one is neither takes the lease nor queues another. */
  let busy = 0;
  const control = { stopped: () => stopped };
  const runPass = async (now?: Date) => {
    const started = Date.now();
    // The cutoffs come from one read of the database's clock per pass, not this host's clock:
    // a host whose clock runs ahead must not prune other hosts' rows early.
    const at = now ?? (await dbNow(deps.db));
    const counts = await prunePass(deps.db, settings, at, control);
    for (const [kind, n] of Object.entries(counts))
      deps.metrics.inc("toolshed_rows_pruned_total", { kind }, n);
    if (Object.keys(counts).length > 0)
      deps.logger.info({ pruned: counts, ms: Date.now() - started }, "retention pass");
    return counts;
  };
  const pass = (now?: Date) => {
    busy++;
    const next = current.then(
      () => runPass(now),
      () => runPass(now),
    );
    current = next.catch(() => undefined).finally(() => busy--);
    return next;
  };
  // A pass longer than the interval (a big backlog) is not followed by a queue of more.
  const timed = async () => {
    if (busy > 0) return;
    if (opts.lease && !(await opts.lease())) return;
    await pass();
  };
  const timer = setInterval(() => {
    timed().catch((err: unknown) => {
      deps.metrics.inc("toolshed_prune_failures_total");
      deps.logger.warn({ err }, "retention pass failed; the next interval tries again");
    });
  }, opts.intervalMs);
  timer.unref();
  return {
    pass,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
