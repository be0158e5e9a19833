/**
 * Fair scheduling across tenants, as a BullMQ priority (lower runs first). A job's priority is
 * 1 + the number of its tenant's *other* calls queued or running when it is enqueued: the k-th
 * pending call of every tenant gets priority k, so one queue interleaves tenants round-robin
 * (A1 B1 A2 B2 …) and a tenant that floods the queue only pushes back its own later calls.
 * Equal priorities stay FIFO. Per-session order is still enforced by `claimJob` from the rows;
 * the priority only picks which waiting job a free worker takes next. It is derived from the
 * rows, so re-enqueuing after a restart (`recoverJobs`) recomputes it.
 */
import { and, count, eq, inArray, ne } from "drizzle-orm";
import type { Db } from "../../db/open.js";
import { jobs } from "../../db/schema.js";

/** BullMQ's largest priority. */
export const MAX_PRIORITY = 2_097_151;

export function fairPriority(db: Db, jobId: string): number {
  const job = db.select({ tenantId: jobs.tenantId }).from(jobs).where(eq(jobs.id, jobId)).get();
  if (!job) return 1;
  const row = db
    .select({ n: count() })
    .from(jobs)
    .where(
      and(eq(jobs.tenantId, job.tenantId), inArray(jobs.status, ["queued", "running"]), ne(jobs.id, jobId)),
    )
    .get();
  return Math.min(MAX_PRIORITY, 1 + (row?.n ?? 0));
}
