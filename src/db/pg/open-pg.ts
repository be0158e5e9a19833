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
/** How long taking a new connection may wait for the server. */
const CONNECT_TIMEOUT_MS = 10_000;

export async function openPg(url: string, opts: { max?: number } = {}): Promise<OpenedPg> {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    // A server that does not answer fails the query after this, rather than hold it forever.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // An idle client that loses its server emits `error`; without a listener that kills the process.
  // The pool drops that client and opens a new one on the next query: it reconnects by itself.
  pool.on("error", () => undefined);
  // A client taken from the pool (in a transaction, between its statements) whose server goes
  // away emits `error` too, and the pool listens only to idle ones: its next statement fails
  // instead ("not queryable"), and the pool drops it when it is released.
  pool.on("connect", (client) => client.on("error", () => undefined));
  tagConnectFailures(pool);
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

/**
 * Not getting a connection means the server is down, refusing or too slow: named so that the
 * API answers 503 UNAVAILABLE (src/errors.ts matches the name; Drizzle keeps it as the cause).
 */
export class DatabaseUnreachableError extends Error {
  override name = "DatabaseUnreachableError";
  constructor(cause: unknown) {
    super(`the database is unreachable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}

type ConnectCallback = (
  err: Error | undefined,
  client?: pg.PoolClient,
  done?: (release?: unknown) => void,
) => void;

/** Every way a connection is taken (`pool.query` and transactions alike) goes through `connect`. */
function tagConnectFailures(pool: pg.Pool): void {
  const connect = pool.connect.bind(pool) as (cb?: ConnectCallback) => Promise<pg.PoolClient> | undefined;
  // Once closed on purpose, the pool's own refusal is not an outage.
  const tag = (err: Error | undefined) => (err && !pool.ending ? new DatabaseUnreachableError(err) : err);
  pool.connect = ((cb?: ConnectCallback) => {
    if (cb) return connect((err, client, done) => cb(tag(err), client, done));
    return connect()!.catch((err: Error) => {
      throw tag(err);
    });
  }) as typeof pool.connect;
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
