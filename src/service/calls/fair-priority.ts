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
import { type Db, first, tablesOf } from "../../db/db.js";

/** BullMQ's largest priority. */
export const MAX_PRIORITY = 2_097_151;

export async function fairPriority(db: Db, jobId: string): Promise<number> {
  const { jobs } = tablesOf(db);
  // One statement (it runs on every submit): the job's tenant is a subquery, and a job that is
  // gone counts nothing, so it gets priority 1.
  const tenantOfJob = db.select({ tenantId: jobs.tenantId }).from(jobs).where(eq(jobs.id, jobId));
  const row = await first(
    db
      .select({ n: count() })
      .from(jobs)
      .where(
        and(eq(jobs.tenantId, tenantOfJob), inArray(jobs.status, ["queued", "running"]), ne(jobs.id, jobId)),
      ),
  );
  return Math.min(MAX_PRIORITY, 1 + (row?.n ?? 0));
}
