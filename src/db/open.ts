/**
 * Opens the SQLite store (WAL, foreign keys, busy timeout, immediate transactions) and applies
 * the migrations.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type BetterSQLiteSession, BetterSQLiteTransaction, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import type { Db } from "./db.js";
import * as schema from "./schema.js";
import { checkpointInBackground } from "./wal-checkpointer.js";

export interface OpenedDb {
  db: Db;
  /** Throws when the file cannot be read (readiness). */
  ping(): void;
  close(): void;
}

const MIGRATIONS = fileURLToPath(new URL("../../migrations", import.meta.url));

/**
 * Drizzle asks SQLite to compile every query anew; a call runs a few dozen. Statements are
 * reusable, so keep them by SQL text (bounded) and reset their result mode before each reuse.
 */
function cacheStatements(sqlite: Database.Database, max = 500): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new Map<string, Database.Statement>();
  sqlite.prepare = ((source: string) => {
    const hit = cache.get(source);
    if (hit) {
      if (hit.reader) hit.raw(false).pluck(false).expand(false);
      return hit;
    }
    const stmt = prepare(source);
    if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    cache.set(source, stmt);
    return stmt;
  }) as typeof sqlite.prepare;
}

/**
 * Opens the database file (creating its folder), with WAL, foreign keys and migrations.
 * `checkpointInBackground`: the service's connection, whose WAL checkpoints run on a thread of
 * their own rather than inside a call's commit (wal-checkpointer.ts).
 */
export function openDb(file: string, opts: { checkpointInBackground?: boolean } = {}): OpenedDb {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // WAL + NORMAL is durable across process crashes (only an OS crash can lose the last commits).
  sqlite.pragma("synchronous = NORMAL");
  cacheStatements(sqlite);
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder: MIGRATIONS });
  beginImmediate(db, sqlite);
  const stopCheckpoints =
    opts.checkpointInBackground && file !== ":memory:" ? checkpointInBackground(sqlite, file) : undefined;
  return {
    db,
    ping: () => void sqlite.prepare("select 1").get(),
    close: () => {
      stopCheckpoints?.();
      sqlite.close();
    },
  };
}

/**
 * Several processes may share the file. A deferred transaction that reads and then writes
 * fails at once with SQLITE_BUSY when another process wrote in between (the busy timeout does
 * not apply to that upgrade); BEGIN IMMEDIATE takes the write lock first, waiting up to the
 * busy timeout. Every transaction here writes, so all of them begin immediately.
 *
 * Drizzle's own `transaction` builds, for every transaction, a transaction handle (a query
 * builder per table of the schema) and asks better-sqlite3 for a new wrapper (four functions
 * and their properties): ~50 µs of a warm call's CPU. Both are made once here instead: the
 * handle holds no state of its own (its nested transactions make theirs), and the wrapper runs
 * the function it is given. What runs is what drizzle's ran: BEGIN (a SAVEPOINT when already
 * inside one), the function, COMMIT, or ROLLBACK on a throw (`tx.rollback()` included).
 */
function beginImmediate(db: Db, sqlite: Database.Database): void {
  const session = (db as unknown as { session: BetterSQLiteSession<typeof schema, never> }).session;
  const internals = session as unknown as { dialect: unknown; schema: unknown };
  const tx = new BetterSQLiteTransaction(
    "sync",
    internals.dialect as never,
    session,
    internals.schema as never,
  ) as unknown as Tx;
  const run = sqlite.transaction((fn: (t: Tx) => unknown) => fn(tx));
  db.transaction = ((
    fn: (t: Tx) => unknown,
    config?: { behavior?: "deferred" | "immediate" | "exclusive" },
  ) => run[config?.behavior ?? "immediate"](fn)) as Db["transaction"];
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
