/**
 * Opens the Postgres store (`DATABASE_URL`): a connection pool and the migrations of
 * migrations-pg/, applied once under an advisory lock so that processes starting together
 * (API replicas, workers) do not race on a fresh database.
 */
import { fileURLToPath } from "node:url";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import * as schema from "./schema.js";

export type PgDb = NodePgDatabase<typeof schema>;

export interface OpenedPg {
  db: PgDb;
  pool: pg.Pool;
  /** Rejects when the server does not answer (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS = fileURLToPath(new URL("../../../migrations-pg", import.meta.url));
/** The advisory lock key of the migrations (any constant shared by every process). */
const MIGRATION_LOCK = 7_312_001;

export async function openPg(url: string, opts: { max?: number } = {}): Promise<OpenedPg> {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  // An idle client that loses its server emits `error`; without a listener that kills the process.
  pool.on("error", () => undefined);
  try {
    await migratePg(pool);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return {
    db: drizzle(pool, { schema }),
    pool,
    ping: async () => void (await pool.query("select 1")),
    close: () => pool.end(),
  };
}

/** Applies the migrations while holding a session-level advisory lock (released even on failure). */
export async function migratePg(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
