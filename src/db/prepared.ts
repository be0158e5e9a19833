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

const cache = new WeakMap<Db, PreparedStatements>();

/** The prepared statements of `db`, made on first use. */
export function preparedFor(db: Db): PreparedStatements {
  let p = cache.get(db);
  if (!p) {
    p = build(db);
    cache.set(db, p);
  }
  return p;
}
