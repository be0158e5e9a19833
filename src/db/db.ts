/**
 * The database handle the service verbs use, on either dialect.
 *
 * It is typed as Drizzle on SQLite, but at run time it is Drizzle on better-sqlite3 or on
 * node-postgres, each built with its own dialect's tables. So a verb:
 * - takes its tables from the handle (`tablesOf(db)`), never from `schema.js` directly: a SQLite
 *   table object on Postgres would map JSON and flags the SQLite way;
 * - awaits its query builders (both dialects' builders are thenables) and never calls SQLite's
 *   synchronous `.all()`, `.get()`, `.run()` (they do not exist on Postgres); `first()` takes one row;
 * - uses what both dialects share: `returning`, `onConflictDoNothing/DoUpdate`, drizzle's `count()`
 *   (a bare `count(*)` is a string on Postgres), row-value comparisons;
 * - writes several statements that must land together through `atomically` (a SQLite transaction
 *   is synchronous, a Postgres one is not: one function covers both).
 * The hot transactional paths with reads inside the transaction live in the job store (store.ts).
 */
import { is } from "drizzle-orm";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { PgDatabase } from "drizzle-orm/pg-core";
import type * as schema from "./schema.js";

export type Db = BetterSQLite3Database<typeof schema>;
/** The tables (and row types) of the handle's dialect, under the SQLite schema's names and types. */
export type Tables = typeof schema;
export type Dialect = "sqlite" | "pg";

/** The handle's own tables: SQLite's on SQLite, the Postgres twins (src/db/pg) on Postgres. */
export function tablesOf(db: Db): Tables {
  return db._.fullSchema;
}

const dialects = new WeakMap<Db, Dialect>();

/** Asked before most statements of a call: `is()` walks the handle's prototypes, so once per handle. */
export function dialectOf(db: Db): Dialect {
  let dialect = dialects.get(db);
  if (dialect === undefined) {
    dialect = is(db as unknown, PgDatabase) ? "pg" : "sqlite";
    dialects.set(db, dialect);
  }
  return dialect;
}

/** The first row of an awaited select (add `.limit(1)` where more could match), or undefined. */
export async function first<T>(rows: PromiseLike<T[]>): Promise<T | undefined> {
  return (await rows)[0];
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** A write statement of a transaction (update, insert, delete), built on the transaction handle. */
type Write = { run(): unknown; all(): unknown } & PromiseLike<unknown>;
/**
 * What each write gave: its rows for a write with `.returning(...)` (the same on both dialects);
 * for one without, a driver-specific summary that callers must not rely on.
 */
type Results<W extends readonly Write[]> = { -readonly [K in keyof W]: Awaited<W[K]> };

/**
 * Runs the writes `build` returns in one transaction, in order: all land or none. The writes are
 * built on the transaction's handle (`tx`), which also has the tables (`tablesOf(tx)`). Returns
 * each write's result in the same order, so a write with `.returning({ id })` tells exactly which
 * rows it changed (rather than a read before the transaction, which a concurrent change outdates).
 */
export async function atomically<const W extends readonly Write[]>(
  db: Db,
  build: (tx: Db) => W,
): Promise<Results<W>> {
  if (dialectOf(db) === "pg") {
    const pgDb = db as unknown as PgDatabase<never, typeof schema>;
    return pgDb.transaction(async (tx) => {
      const results: unknown[] = [];
      for (const w of build(tx as unknown as Db)) results.push(await w);
      return results as Results<W>;
    });
  }
  // better-sqlite3 runs a transaction synchronously: each write runs through its synchronous
  // method, `all()` when it returns rows (`run()` would drop them), `run()` otherwise (`all()`
  // refuses a statement that returns none). Drizzle keeps the `.returning()` fields in `config`.
  return db.transaction((tx: Tx) =>
    build(tx as unknown as Db).map((w) => (returnsRows(w) ? w.all() : w.run())),
  ) as Results<W>;
}

function returnsRows(w: Write): boolean {
  return Boolean((w as { config?: { returning?: unknown } }).config?.returning);
}
