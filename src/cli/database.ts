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
