/**
 * `toolshed db migrate`: applies the Postgres migrations ahead of a deploy. The server itself
 * opens SQLite (<DATA_DIR>/toolshed.db) or, with DATABASE_URL, Postgres (src/db/open-database.ts),
 * migrating either at start.
 */
import type { Config } from "../config.js";
import { openPg } from "../db/pg/open-pg.js";

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

export const SHARED_KEY_REQUIRED =
  "TOOLSHED_SECRET_KEY is required with DATABASE_URL: hosts sharing a database open each other's " +
  "sealed secrets and console cookies, so every process needs the same key " +
  "(openssl rand -base64 32), not a key file in its own DATA_DIR.";

/** Throws before anything starts when processes sharing a database would each make their own key. */
export function requireSharedKey(config: Pick<Config, "DATABASE_URL" | "TOOLSHED_SECRET_KEY">): void {
  if (config.DATABASE_URL && !config.TOOLSHED_SECRET_KEY) throw new Error(SHARED_KEY_REQUIRED);
}
