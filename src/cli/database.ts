/**
 * Which database a server runs on, and `toolshed db migrate`. Only the job store (submit,
 * claim, finish, approvals: src/db/store.ts) runs on Postgres so far; the other verbs still
 * read and write SQLite synchronously, so a server with DATABASE_URL would keep half its state
 * in each. It refuses to start instead, saying what is missing.
 */
import type { Config } from "../config.js";
import { openPg } from "../db/pg/open-pg.js";

export const POSTGRES_NOT_YET =
  "DATABASE_URL is set, but the server cannot run on Postgres yet: only the job store (submit, " +
  "claim, finish, approvals) is ported; tenants and API keys, sessions, rules and settings, " +
  "external tools, tool groups, skills, MCP servers, the read cache, session tasks, the audit " +
  "list, quotas and job recovery still use SQLite. Unset DATABASE_URL to run on SQLite " +
  "(<DATA_DIR>/toolshed.db); `toolshed db migrate` prepares a Postgres database meanwhile.";

/** Throws before anything starts when the configuration asks for a store this build lacks. */
export function requireSupportedDatabase(config: Pick<Config, "DATABASE_URL">): void {
  if (config.DATABASE_URL) throw new Error(POSTGRES_NOT_YET);
}

/** `toolshed db migrate`: applies migrations-pg/ to DATABASE_URL (once, under an advisory lock). */
export async function runDbMigrate(config: Pick<Config, "DATABASE_URL">, out: NodeJS.WritableStream) {
  if (!config.DATABASE_URL) {
    out.write("DATABASE_URL is not set: SQLite is migrated by the server itself at start\n");
    return 2;
  }
  const db = await openPg(config.DATABASE_URL, { max: 1 });
  await db.close();
  out.write("postgres migrations applied\n");
  return 0;
}
