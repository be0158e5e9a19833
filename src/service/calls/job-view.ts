/** Rows to the API's `job` shape (declared in contracts/job.ts), and the status groups the verbs reason about. */

import { eq } from "drizzle-orm";
import type { JobStatus, JobView, StoredResult } from "../../contracts/job.js";
import { type Db, dialectOf, first, tablesOf } from "../../db/db.js";
import { preparedFor } from "../../db/prepared.js";
import type { JobRow } from "../../db/rows.js";
import { NotFoundError } from "../../errors.js";
import type { ServiceDeps } from "../ports.js";
import type { Principal } from "../tenancy/principal.js";
import { requireTenant } from "../tenancy/principal.js";

/** Statuses in which nothing happens until someone answers or a worker finishes. */
export const PENDING_WORK: readonly JobStatus[] = ["queued", "running"];

export function toJobView(row: JobRow): JobView {
  return {
    id: row.id,
    sessionId: row.sessionId,
    tool: row.tool,
    input: row.input,
    status: row.status,
    decision: row.decision,
    ...(row.result ? { result: row.result } : {}),
    ...(row.idempotencyKey ? { idempotencyKey: row.idempotencyKey } : {}),
    ...(row.approvedBy ? { approvedBy: row.approvedBy } : {}),
    ...(row.approvalExpiresAt ? { approvalExpiresAt: row.approvalExpiresAt } : {}),
    createdAt: row.createdAt,
    ...(row.startedAt ? { startedAt: row.startedAt } : {}),
    ...(row.finishedAt ? { finishedAt: row.finishedAt } : {}),
    ...(row.hostId ? { hostId: row.hostId } : {}),
    ...(row.attempts && row.attempts.length > 0 ? { attempts: row.attempts } : {}),
  };
}

export async function findJob(db: Db, jobId: string): Promise<JobRow | undefined> {
  // SQLite keeps its prepared statement (building the SQL on every read cost the most CPU of a call).
  if (dialectOf(db) === "sqlite") return first(preparedFor(db).jobById.execute({ id: jobId }));
  const { jobs } = tablesOf(db);
  return first(db.select().from(jobs).where(eq(jobs.id, jobId)).limit(1));
}

/**
 * The job if the caller's tenant owns it; 404 otherwise, whose message says how long finished
 * jobs are kept (the same words for a missing, a pruned and another tenant's job).
 */
export async function loadJob(
  deps: Pick<ServiceDeps, "db" | "jobRetentionDays">,
  p: Principal,
  jobId: string,
): Promise<JobRow> {
  const hint = deps.jobRetentionDays ? `finished jobs are kept ${deps.jobRetentionDays} days` : undefined;
  const row = await findJob(deps.db, jobId);
  if (!row) throw new NotFoundError("job", jobId, hint);
  requireTenant(p, row.tenantId, "job", jobId, hint);
  return row;
}

/**
 * The result of a call cancelled while not running: before it started, unless an earlier attempt
 * was claimed (its sandbox went away mid-run, or its worker or host was lost, and it was queued
 * again): then the caller must not read that nothing happened.
 */
export function cancelledResult(runs: number): StoredResult {
  const text =
    runs > 0
      ? "The tool call was cancelled after it had started: it may have partly run."
      : "The tool call was cancelled before it started.";
  return textResult(text, "interrupted");
}

/** The result of a call that never ran (denied, cancelled before start). */
export function textResult(text: string, state: StoredResult["state"]): StoredResult {
  return { content: [{ type: "text", text }], state };
}
