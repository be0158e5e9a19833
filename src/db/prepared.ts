/**
 * Prepared statements for the hottest lookups (a job, a session, a key, the tenant's rules, a
 * Read's cache entry). Drizzle otherwise builds the SQL and asks SQLite to prepare it on every
 * call, which was the largest CPU cost of a call. SQLite only: on Postgres the callers run the
 * builder (node-postgres sends it as one query).
 */
import { and, count, eq, getTableColumns, inArray, isNull, type Placeholder, sql } from "drizzle-orm";
import { type Db, tablesOf } from "./db.js";
import { fastPrepared } from "./fast-prepared.js";
import { readCacheReplacement } from "./job-predicates.js";
import { apiKeys, jobs, readCache, sessions, tenantRules } from "./schema.js";
import { ACTIVE_STATUSES } from "./store.js";

const p = sql.placeholder;

function build(db: Db) {
  return {
    jobById: db
      .select()
      .from(jobs)
      .where(eq(jobs.id, sql.placeholder("id")))
      .prepare(),
    sessionById: db
      .select()
      .from(sessions)
      .where(eq(sessions.id, sql.placeholder("id")))
      .prepare(),
    /** A session with its tenant's rules (null: none stored), for a call's decision. */
    sessionWithRules: sessionWithRulesQuery(db, sql.placeholder("id")).prepare(),
    liveKeyByHash: db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.hash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
      .prepare(),
    /** The tenant's jobs that take an active-call slot (its maxActiveCalls). */
    activeCount: db
      .select({ n: count() })
      .from(jobs)
      .where(and(eq(jobs.tenantId, p("tenantId")), inArray(jobs.status, [...ACTIVE_STATUSES])))
      .prepare(),
    tenantRules: db
      .select()
      .from(tenantRules)
      .where(eq(tenantRules.tenantId, p("tenantId")))
      .prepare(),
    /** A Read's entry in the read-before-write cache, replacing the file's earlier one. */
    putReadCache: db
      .insert(readCache)
      .values({
        sessionId: p("sessionId"),
        filePath: p("filePath"),
        lines: p("lines"),
        mtimeMs: p("mtimeMs"),
        contentHash: p("contentHash"),
        sizeBytes: p("sizeBytes"),
        updatedAt: p("updatedAt"),
      })
      .onConflictDoUpdate({
        target: [readCache.sessionId, readCache.filePath],
        ...readCacheReplacement(readCache),
      })
      .prepare(),
  };
}

/**
 * One read instead of two for a call (the session, then its tenant's rules): one statement and one
 * read transaction fewer per call on SQLite, one round trip fewer on Postgres. Flat fields (the
 * session's columns and `tenantRules`), so that the compiled path applies (fast-prepared.ts).
 */
export function sessionWithRulesQuery(db: Db, id: string | Placeholder) {
  const { sessions, tenantRules } = tablesOf(db);
  return db
    .select({ ...getTableColumns(sessions), tenantRules: tenantRules.rules })
    .from(sessions)
    .leftJoin(tenantRules, eq(tenantRules.tenantId, sessions.tenantId))
    .where(eq(sessions.id, id));
}

export type PreparedStatements = ReturnType<typeof build>;

/** `build`'s statements for each database, prepared on its first use (and compiled: fast-prepared.ts). */
export function perDatabase<T extends object>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let made = cache.get(db);
    if (!made) {
      const built = build(db);
      made = Object.fromEntries(Object.entries(built).map(([k, q]) => [k, fastPrepared(q)])) as T;
      cache.set(db, made);
    }
    return made;
  };
}

/** The prepared statements of `db`, made on first use. */
export const preparedFor = perDatabase(build);
