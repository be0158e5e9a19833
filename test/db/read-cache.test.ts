/**
 * The read-before-write cache in the database, on SQLite and on Postgres: entries per session
 * and path, JSON lines and fractional mtimes kept exactly, replaced on put, gone on delete.
 * Postgres comes from scripts/postgres.sh; outside CI its half skips when it cannot be started.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/db.js";
import { openPg } from "../../src/db/pg/open-pg.js";
import { DbReadCache } from "../../src/db/stores/read-cache-store.js";
import type { ReadCacheEntry } from "../../src/toolkit/read-cache.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../support/postgres.js";
import { openTestDb } from "../support/test-db.js";

const entry = (filePath: string, text: string): ReadCacheEntry => ({
  filePath,
  lines: text.split(/(?<=\n)/),
  mtimeMs: 1_764_000_000_123.456,
  contentHash: "ab".repeat(32),
  sizeBytes: Buffer.byteLength(text),
});

function readCacheContract(open: () => Promise<{ db: Db; close(): Promise<void> }>) {
  let opened: { db: Db; close(): Promise<void> };
  beforeEach(async () => {
    opened = await open();
  });
  afterEach(async () => {
    await opened.close();
  });

  it("keeps an entry per session and path, exactly", async () => {
    const cache = new DbReadCache(opened.db);
    const e = entry("/workspace/a.txt", 'one\n"two" ü\nthree');
    await cache.put("ses_1", e);
    expect(await cache.get("ses_1", "/workspace/a.txt")).toEqual(e);
    expect(await cache.get("ses_2", "/workspace/a.txt")).toBeUndefined();
    expect(await cache.get("ses_1", "/workspace/b.txt")).toBeUndefined();
  });

  it("a put replaces the entry and a delete removes only its own", async () => {
    const cache = new DbReadCache(opened.db);
    await cache.put("ses_1", entry("/workspace/a.txt", "old\n"));
    await cache.put("ses_1", entry("/workspace/b.txt", "b\n"));
    const fresh = { ...entry("/workspace/a.txt", "new\nlines\n"), mtimeMs: 2 };
    await cache.put("ses_1", fresh);
    expect(await cache.get("ses_1", "/workspace/a.txt")).toEqual(fresh);
    await cache.delete("ses_1", "/workspace/a.txt");
    expect(await cache.get("ses_1", "/workspace/a.txt")).toBeUndefined();
    expect((await cache.get("ses_1", "/workspace/b.txt"))?.lines).toEqual(["b\n"]);
  });
}

describe("DbReadCache on SQLite", () => {
  readCacheContract(async () => {
    const dir = mkdtempSync(join(tmpdir(), "tst-rc-"));
    const { db, close } = openTestDb(join(dir, "t.db"));
    return {
      db,
      async close() {
        close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

const server = localPostgresUrl();

// CI must run it: there, a Postgres that did not start fails the file instead of skipping it.
describe.skipIf(!server && !process.env.CI)("DbReadCache on Postgres", () => {
  let dbUrl: string;
  beforeAll(async () => {
    dbUrl = await freshDatabase(server!);
  });
  afterAll(async () => {
    if (dbUrl) await dropDatabase(server!, dbUrl);
  });
  readCacheContract(async () => {
    const pg = await openPg(dbUrl, { max: 2 });
    // Each test starts from an empty table (the database is shared by the file's tests).
    await pg.pool.query("delete from read_cache");
    return { db: pg.db as unknown as Db, close: pg.close };
  });
});
