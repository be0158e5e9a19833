/**
 * The worker's verbs. `claimJob` enforces per-session ordering from the job rows (the source
 * of truth): a job may start only when no earlier-queued job of its session that conflicts
 * with it is still queued or running. Unsafe calls conflict with everything, safe calls only
 * with unsafe ones. The check depends only on *earlier* jobs, which only move forward, so once
 * a job may start it stays startable, and concurrent workers cannot deadlock.
 * A `run` claim has not published its `running` status yet: `executeJob` does, off the
 * critical path.
 */
import { and, eq, gt, inArray, lt, sql } from "drizzle-orm";
import { type JobRow, jobs, type SessionRow, sessions } from "../../db/schema.js";
import { auditKeys, writeAudit } from "../calls/audit.js";
import { closeLastAttempt, finishJob, logTransition, publishState } from "../calls/job-transitions.js";
import { textResult } from "../calls/job-view.js";
import { nowIso } from "../clock.js";
import type { ServiceDeps } from "../ports.js";
import { workerIdentity } from "./worker-identity.js";

export type Claim =
  | { kind: "run"; job: JobRow; session: SessionRow }
  | { kind: "wait"; blockedBy: string }
  | { kind: "skip"; reason: string };

export async function claimJob(deps: ServiceDeps, jobId: string): Promise<Claim> {
  const claim = deps.db.transaction((tx): Claim => {
    const job = tx.select().from(jobs).where(eq(jobs.id, jobId)).get();
    if (!job) return { kind: "skip", reason: "no such job" };
    if (job.status !== "queued" && job.status !== "running") return { kind: "skip", reason: job.status };
    const session = tx.select().from(sessions).where(eq(sessions.id, job.sessionId)).get();
    if (job.cancelRequested || session?.status !== "active") return { kind: "skip", reason: "cancelled" };
    const blocker = tx
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(
          eq(jobs.sessionId, job.sessionId),
          lt(jobs.seq, job.seq ?? 0),
          inArray(jobs.status, ["queued", "running"]),
          job.concurrencySafe ? eq(jobs.concurrencySafe, false) : undefined,
        ),
      )
      .orderBy(jobs.seq)
      .get();
    if (blocker) return { kind: "wait", blockedBy: blocker.id };
    const now = nowIso();
    const startedAt = job.startedAt ?? now;
    // An attempt left open was cut short (its worker died): say so before opening the next.
    const attempts = (job.attempts ?? []).map((a) => (a.endedAt ? a : { ...a, outcome: "worker lost" }));
    attempts.push({ n: job.runs + 1, worker: workerIdentity(), startedAt: now });
    if (job.runs > 0) {
      const data = { n: job.runs + 1, worker: workerIdentity(), earlier: attempts.slice(0, -1) };
      writeAudit(tx, { ...auditKeys(job), kind: "attempt", actorKeyId: null, data });
    }
    tx.update(jobs)
      .set({ status: "running", startedAt, runs: sql`${jobs.runs} + 1`, attempts })
      .where(eq(jobs.id, jobId))
      .run();
    const claimed = { ...job, status: "running" as const, startedAt, runs: job.runs + 1, attempts };
    return { kind: "run", job: claimed, session };
  });
  if (claim.kind === "skip" && claim.reason === "cancelled") {
    const text = "The tool call was cancelled before it started.";
    if (finishJob(deps.db, jobId, "cancelled", textResult(text, "interrupted")))
      await publishState(deps, jobId);
  }
  return claim;
}

/** A job that could not run this time goes back to `queued` (it keeps its place). */
export function requeueJob(deps: ServiceDeps, jobId: string, why = "retry"): void {
  const row = deps.db
    .update(jobs)
    .set({ status: "queued", attempts: closeLastAttempt(nowIso(), why) })
    .where(and(eq(jobs.id, jobId), eq(jobs.status, "running")))
    .returning()
    .get();
  if (row) logTransition(deps.logger, row);
}

/** Records which sandbox instance the job's current attempt uses. */
export function recordAttemptSandbox(deps: ServiceDeps, jobId: string, sandbox: string): void {
  deps.db
    .update(jobs)
    .set({ attempts: sql`json_set(${jobs.attempts}, '$[#-1].sandbox', ${sandbox})` })
    .where(and(eq(jobs.id, jobId), sql`json_array_length(coalesce(${jobs.attempts}, '[]')) > 0`))
    .run();
}

/** Fails a job for a reason outside the tool (the message is safe to show). */
export async function failJob(deps: ServiceDeps, jobId: string, message: string): Promise<void> {
  const row = deps.db
    .select({ tool: jobs.tool, startedAt: jobs.startedAt })
    .from(jobs)
    .where(eq(jobs.id, jobId))
    .get();
  if (finishJob(deps.db, jobId, "failed", textResult(message, "error"), message)) {
    deps.metrics.jobFinished("failed", row);
    await publishState(deps, jobId);
  }
  await wakeSuccessors(deps, jobId);
}

/**
 * Wakes the session's jobs that may start now that `jobId` finished: the next queued job, and
 * when it is concurrency-safe, the safe ones right after it. Others stay delayed (no stampede).
 */
export async function wakeSuccessors(deps: ServiceDeps, jobId: string): Promise<void> {
  const job = deps.db.select().from(jobs).where(eq(jobs.id, jobId)).get();
  if (!job || job.seq === null) return;
  const next = deps.db
    .select({ id: jobs.id, safe: jobs.concurrencySafe })
    .from(jobs)
    .where(and(eq(jobs.sessionId, job.sessionId), eq(jobs.status, "queued"), gt(jobs.seq, job.seq)))
    .orderBy(jobs.seq)
    .limit(32)
    .all();
  const firstUnsafe = next.findIndex((n) => !n.safe);
  const wake =
    firstUnsafe === 0 ? next.slice(0, 1) : next.slice(0, firstUnsafe === -1 ? next.length : firstUnsafe);
  await Promise.all(wake.map((n) => deps.queue.promote(n.id).catch(() => undefined)));
}
