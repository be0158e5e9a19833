/**
 * Two handles on one database, for the tests where two processes share it (two workers, an API
 * and a worker): two connections to one SQLite file, or two pools on one Postgres database.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db } from "../../src/db/db.js";
import { openDb } from "../../src/db/open.js";
import { openPg } from "../../src/db/pg/open-pg.js";
import { openTestDb } from "./test-db.js";

export interface TwoHandles {
  a: Db;
  b: Db;
  close(): Promise<void>;
}

/** A fresh migrated SQLite file under a temporary folder (removed on close), opened twice. */
export function sqliteTwice(prefix: string): TwoHandles {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = join(dir, "t.db");
  const a = openTestDb(file);
  const b = openDb(file);
  return {
    a: a.db,
    b: b.db,
    async close() {
      b.close();
      a.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Two pools on the Postgres database at `url` (closed on close; the database is the caller's). */
export async function pgTwice(url: string): Promise<TwoHandles> {
  const a = await openPg(url);
  const b = await openPg(url);
  return {
    a: a.db as unknown as Db,
    b: b.db as unknown as Db,
    async close() {
      await Promise.all([a.close(), b.close()]);
    },
  };
}
