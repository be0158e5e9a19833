/**
 * SQL terms both dialects share. First the job-status terms of the partial indexes on `jobs`
 * (both dialects' schemas use them), for the queries that seek those indexes. SQLite uses a partial index only for a query that carries
 * the index's own term, with literals: a status bound as a parameter never matches, and the query
 * then scans. So these are SQL with the statuses inlined, shared by the index and its queries.
 */

import type { AnyColumn } from "drizzle-orm";
import { type SQL, sql } from "drizzle-orm";
import type { JobStatus } from "../contracts/job.js";

/**
 * A call not yet over: these statuses take one of a tenant's active-call slots (its
 * `maxActiveCalls`), and their rows are jobs_active_idx's.
 */
export const ACTIVE_STATUSES = ["queued", "running"] as const satisfies readonly JobStatus[];

/** `queued` or `running` (ACTIVE_STATUSES, inlined): the rows of jobs_active_idx. */
export function activeJob(status: AnyColumn): SQL {
  return sql`${status} in (${sql.raw(ACTIVE_STATUSES.map((s) => `'${s}'`).join(", "))})`;
}

/** `awaiting_approval`: the rows of jobs_approval_expiry_idx (pending a human, until expiry). */
export function pendingApproval(status: AnyColumn): SQL {
  return sql`${status} = 'awaiting_approval'`;
}

/** `queued` alone, inlined (queries that seek jobs_active_idx add it to activeJob). */
export function queuedJob(status: AnyColumn): SQL {
  return sql`${status} = 'queued'`;
}

/**
 * A read-cache upsert's `DO UPDATE`: the file's entry replaced by the new one, only when the file
 * changed (its hash, mtime or size), so that a file read again unchanged rewrites no row and its
 * commit writes no page. `existing` is the table's column set (either dialect's).
 */
export function readCacheReplacement(existing: {
  contentHash: AnyColumn;
  mtimeMs: AnyColumn;
  sizeBytes: AnyColumn;
}): { set: Record<"lines" | "mtimeMs" | "contentHash" | "sizeBytes" | "updatedAt", SQL>; setWhere: SQL } {
  return {
    set: {
      lines: sql`excluded.lines`,
      mtimeMs: sql`excluded.mtime_ms`,
      contentHash: sql`excluded.content_hash`,
      sizeBytes: sql`excluded.size_bytes`,
      updatedAt: sql`excluded.updated_at`,
    },
    setWhere: sql`${existing.contentHash} <> excluded.content_hash or ${existing.mtimeMs} <> excluded.mtime_ms or ${existing.sizeBytes} <> excluded.size_bytes`,
  };
}
