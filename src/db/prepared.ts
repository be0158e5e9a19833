/**
 * Prepared statements for the hottest lookups (a job, a session, a key). Drizzle otherwise builds
 * the SQL and asks SQLite to prepare it on every call, which was the largest CPU cost of a call.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "./db.js";
import { apiKeys, jobs, sessions } from "./schema.js";

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
    liveKeyByHash: db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.hash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
      .prepare(),
  };
}

export type PreparedStatements = ReturnType<typeof build>;

/** `build`'s statements for each database, prepared on its first use. */
export function perDatabase<T extends object>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let made = cache.get(db);
    if (!made) {
      made = build(db);
      cache.set(db, made);
    }
    return made;
  };
}

/** The prepared statements of `db`, made on first use. */
export const preparedFor = perDatabase(build);
