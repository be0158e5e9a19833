/**
 * Opens the store the configuration names: Postgres when `DATABASE_URL` is set (several hosts
 * share it), else the SQLite file in DATA_DIR (one host, embedded). Either way the service gets
 * one `Db` handle (db.ts) and the job store of that dialect.
 */
import { join } from "node:path";
import type { Db, Dialect } from "./db.js";
import { openDb } from "./open.js";
import { openPg } from "./pg/open-pg.js";
import { PgJobStore } from "./pg/pg-job-store.js";
import type { JobStore } from "./store.js";
import { SqliteJobStore } from "./stores/sqlite-job-store.js";

export interface OpenedDatabase {
  dialect: Dialect;
  db: Db;
  store: JobStore;
  /** Rejects when the database does not answer (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export async function openDatabase(config: {
  DATABASE_URL?: string;
  DATA_DIR: string;
}): Promise<OpenedDatabase> {
  if (config.DATABASE_URL) {
    const pg = await openPg(config.DATABASE_URL);
    return {
      dialect: "pg",
      // The Postgres handle under the SQLite type: see db.ts for what verbs may use of it.
      db: pg.db as unknown as Db,
      store: new PgJobStore(pg.db),
      ping: pg.ping,
      close: pg.close,
    };
  }
  const sqlite = openDb(join(config.DATA_DIR, "toolshed.db"), { checkpointInBackground: true });
  return {
    dialect: "sqlite",
    db: sqlite.db,
    store: new SqliteJobStore(sqlite.db),
    ping: async () => sqlite.ping(),
    close: async () => sqlite.close(),
  };
}
