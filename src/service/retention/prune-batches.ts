/**
 * What retention may delete, one bounded batch at a time, on either dialect. Each batch is
 * chosen through an index (never a scan of big rows) and deleted by a statement that checks
 * again that every row is still eligible, so a batch is idempotent: running it twice, or on
 * every host at once, deletes each row once and nothing that is not over.
 */
import {
  type AnyColumn,
  and,
  asc,
  eq,
  gt,
  inArray,
  isNotNull,
  lt,
  lte,
  notExists,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { type JobStatus, TERMINAL } from "../../contracts/job.js";
import { atomically, type Db, tablesOf } from "../../db/db.js";

/** The kinds of rows retention prunes (the metric's `kind` label). */
export type PruneKind =
  | "jobs"
  | "sessions"
  | "audit"
  | "api_keys"
  | "webhook_deliveries"
  | "console_signouts";

/** Where a walk over one tenant's index stands: past this (createdAt, id). */
export interface Cursor {
  createdAt: string;
  id: string;
}

/**
 * One batch: the rows deleted; whether the walk has more to look at, and from where (a walk
 * that skips rows it keeps carries a cursor, one whose rows all go simply starts again).
 */
export interface Batch {
  deleted: number;
  more: boolean;
  next?: Cursor;
}

const done: Batch = { deleted: 0, more: false };
/** A walk without a cursor: more only when the whole batch went (a kept row ends the pass). */
const whole = (deleted: number, limit: number): Batch => ({ deleted, more: deleted === limit });
/** A walk with a cursor: more when the batch was full, from its last row. */
const walked = (deleted: number, rows: Cursor[], limit: number): Batch =>
  rows.length < limit ? { deleted, more: false } : { deleted, more: true, next: rows.at(-1) };

/** Rows past `c` in (createdAt, id) order; every row when there is no cursor yet. */
const after = (createdAt: AnyColumn, id: AnyColumn, c?: Cursor) =>
  c ? or(gt(createdAt, c.createdAt), and(eq(createdAt, c.createdAt), gt(id, c.id))) : undefined;

type Table = Parameters<Db["delete"]>[0];

/** Deletes the rows of `table` that `where` matches, in one statement (all or none); how many. */
async function deleteWhere(db: Db, table: Table, where: SQL | undefined): Promise<number> {
  return (await db.delete(table).where(where).returning({ one: sql`1` })).length;
}

/**
 * The next `limit` (id, created_at) of one tenant's rows created before `cutoff`, past `from`,
 * along an index that leads with (tenant, [status,] created_at, id): reads no row.
 */
/** A text column of either dialect's table (typed as SQLite's, like every table the handle gives). */
type Column = SQLiteColumn;

async function oldest(
  db: Db,
  t: { table: Table; id: Column; createdAt: Column; tenantId: Column },
  tenantId: string,
  also: SQL | undefined,
  cutoff: string,
  limit: number,
  from?: Cursor,
): Promise<Cursor[]> {
  return (await db
    .select({ id: t.id, createdAt: t.createdAt })
    .from(t.table)
    .where(and(eq(t.tenantId, tenantId), also, lt(t.createdAt, cutoff), after(t.createdAt, t.id, from)))
    .orderBy(asc(t.createdAt), asc(t.id))
    .limit(limit)) as Cursor[];
}

/** Every tenant's id (tenants are few and never deleted): the walks go a tenant at a time. */
export async function tenantIds(db: Db): Promise<string[]> {
  const { tenants } = tablesOf(db);
  return (await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.id))).map((r) => r.id);
}

/**
 * One tenant's finished jobs in one final status (succeeded, failed, denied, cancelled,
 * interrupted) that finished before `cutoff`, with their inputs, results and idempotency keys.
 * Chosen along the (tenant, status, created_at, id) index, one status at a time, so that no row
 * (a big input comes before the status) is read to choose; the delete keeps any that finished
 * after `cutoff` (created before it, but waited long), and the cursor walks past them.
 */
export async function pruneJobs(
  db: Db,
  tenantId: string,
  status: JobStatus,
  cutoff: string,
  limit: number,
  from?: Cursor,
): Promise<Batch> {
  if (!TERMINAL.includes(status)) return done;
  const { jobs } = tablesOf(db);
  const candidates = await oldest(
    db,
    { table: jobs, ...jobs },
    tenantId,
    eq(jobs.status, status),
    cutoff,
    limit,
    from,
  );
  if (candidates.length === 0) return done;
  const gone = await deleteWhere(
    db,
    jobs,
    and(
      inArray(
        jobs.id,
        candidates.map((c) => c.id),
      ),
      inArray(jobs.status, [...TERMINAL]),
      isNotNull(jobs.finishedAt),
      lt(jobs.finishedAt, cutoff),
    ),
  );
  return walked(gone, candidates, limit);
}

/**
 * Ended sessions of one tenant whose end (`last_used_at`, set by the delete) is before `cutoff`
 * and that hold no job any more (their jobs go first, by the jobs' own retention), with their
 * task lists and read cache, in one transaction. A live session is never touched.
 */
export async function pruneSessions(db: Db, tenantId: string, cutoff: string, limit: number): Promise<Batch> {
  const { sessions, jobs } = tablesOf(db);
  const noJobs = notExists(db.select({ one: sql`1` }).from(jobs).where(eq(jobs.sessionId, sessions.id)));
  const ids = (
    await db
      .select({ id: sessions.id })
      .from(sessions)
      .where(
        and(
          eq(sessions.tenantId, tenantId),
          eq(sessions.status, "deleted"),
          lt(sessions.lastUsedAt, cutoff),
          noJobs,
        ),
      )
      .limit(limit)
  ).map((r) => r.id);
  if (ids.length === 0) return done;
  const [, , gone] = await atomically(db, (tx) => {
    const t = tablesOf(tx);
    const stillEnded = and(
      inArray(t.sessions.id, ids),
      eq(t.sessions.status, "deleted"),
      lt(t.sessions.lastUsedAt, cutoff),
      notExists(tx.select({ one: sql`1` }).from(t.jobs).where(eq(t.jobs.sessionId, t.sessions.id))),
    );
    const ended = tx.select({ id: t.sessions.id }).from(t.sessions).where(stillEnded);
    return [
      tx.delete(t.sessionTasks).where(inArray(t.sessionTasks.sessionId, ended)),
      tx.delete(t.readCache).where(inArray(t.readCache.sessionId, ended)),
      tx.delete(t.sessions).where(stillEnded).returning({ id: t.sessions.id }),
    ] as const;
  });
  return whole(gone.length, limit);
}

/**
 * One tenant's audit entries older than `cutoff`, oldest first, along the trail's own key
 * (tenant, created_at, id): a range delete up to the batch's last key. Entries naming a job that
 * retention removed stay (they carry the tool, an input digest and the decision themselves).
 */
export async function pruneAudit(db: Db, tenantId: string, cutoff: string, limit: number): Promise<Batch> {
  const { audit } = tablesOf(db);
  const keys = await db
    .select({ createdAt: audit.createdAt, id: audit.id })
    .from(audit)
    .where(and(eq(audit.tenantId, tenantId), lt(audit.createdAt, cutoff)))
    .orderBy(asc(audit.createdAt), asc(audit.id))
    .limit(limit);
  const last = keys.at(-1);
  if (!last) return done;
  const upToLast = or(
    lt(audit.createdAt, last.createdAt),
    and(eq(audit.createdAt, last.createdAt), lte(audit.id, last.id)),
  );
  const gone = await deleteWhere(
    db,
    audit,
    and(eq(audit.tenantId, tenantId), lt(audit.createdAt, cutoff), upToLast),
  );
  return whole(gone, limit);
}

/** One tenant's webhook deliveries delivered or given up (`failed`), created before `cutoff`. */
export async function pruneDeliveries(
  db: Db,
  tenantId: string,
  cutoff: string,
  limit: number,
  from?: Cursor,
): Promise<Batch> {
  const { webhookDeliveries: d } = tablesOf(db);
  const candidates = await oldest(db, { table: d, ...d }, tenantId, undefined, cutoff, limit, from);
  if (candidates.length === 0) return done;
  const settled = inArray(d.status, ["delivered", "failed"]);
  const gone = await deleteWhere(
    db,
    d,
    and(
      inArray(
        d.id,
        candidates.map((c) => c.id),
      ),
      settled,
      lt(d.createdAt, cutoff),
    ),
  );
  return walked(gone, candidates, limit);
}

/** API keys revoked before `cutoff` (any tenant; a live key is never touched). */
export async function pruneRevokedKeys(db: Db, cutoff: string, limit: number): Promise<Batch> {
  const { apiKeys } = tablesOf(db);
  const revokedBefore = and(isNotNull(apiKeys.revokedAt), lt(apiKeys.revokedAt, cutoff));
  const ids = (await db.select({ id: apiKeys.id }).from(apiKeys).where(revokedBefore).limit(limit)).map(
    (r) => r.id,
  );
  if (ids.length === 0) return done;
  return whole(await deleteWhere(db, apiKeys, and(inArray(apiKeys.id, ids), revokedBefore)), limit);
}

/** Console sign-outs whose cookie has expired anyway (`now`): nothing to refuse any more. */
export async function pruneSignouts(db: Db, now: string, limit: number): Promise<Batch> {
  const { consoleSignouts: s } = tablesOf(db);
  const nonces = (
    await db
      .select({ nonce: s.nonce })
      .from(s)
      .where(lt(s.expiresAt, now))
      .orderBy(asc(s.expiresAt))
      .limit(limit)
  ).map((r) => r.nonce);
  if (nonces.length === 0) return done;
  return whole(await deleteWhere(db, s, and(inArray(s.nonce, nonces), lt(s.expiresAt, now))), limit);
}
