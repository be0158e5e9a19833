/**
 * SQL terms both dialects share. First the job-status terms of the partial indexes on `jobs`
 * (both dialects' schemas use them), for the queries that seek those indexes. SQLite uses a partial index only for a query that carries
 * the index's own term, with literals: a status bound as a parameter never matches, and the query
 * then scans. So these are SQL with the statuses inlined, shared by the index and its queries.
 */

import type { AnyColumn } from "drizzle-orm";
import { type SQL, sql } from "drizzle-orm";

/** `queued` or `running`: the rows of jobs_active_idx (a session's calls not yet over). */
export function activeJob(status: AnyColumn): SQL {
  return sql`${status} in ('queued', 'running')`;
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
 * An upsert's `DO UPDATE … WHERE` for a read-cache entry: only when the file changed (its hash,
 * mtime or size). A file read again unchanged then rewrites no row, so its commit writes no page.
 * `existing` is the table's column set (either dialect's).
 */
export function readCacheEntryChanged(existing: {
  contentHash: AnyColumn;
  mtimeMs: AnyColumn;
  sizeBytes: AnyColumn;
}): SQL {
  return sql`${existing.contentHash} <> excluded.content_hash or ${existing.mtimeMs} <> excluded.mtime_ms or ${existing.sizeBytes} <> excluded.size_bytes`;
}
