/**
 * The read-before-write cache in the database, on SQLite and on Postgres: entries per session
 * and path, JSON lines and fractional mtimes kept exactly, replaced on put, gone on delete.
 */
import { eq } from "drizzle-orm";
import { expect, it } from "vitest";
import { first, tablesOf } from "../../src/db/db.js";
import { DbReadCache } from "../../src/db/stores/read-cache-store.js";
import type { ReadCacheEntry } from "../../src/toolkit/read-cache.js";
import { describeDialects } from "../support/dialects.js";

const entry = (filePath: string, text: string): ReadCacheEntry => ({
  filePath,
  lines: text.split(/(?<=\n)/),
  mtimeMs: 1_764_000_000_123.456,
  contentHash: "ab".repeat(32),
  sizeBytes: Buffer.byteLength(text),
});

describeDialects(
  "DbReadCache",
  (current) => {
    it("keeps an entry per session and path, exactly", async () => {
      const cache = new DbReadCache(current().db);
      const e = entry("/workspace/a.txt", 'one\n"two" ü\nthree');
      await cache.put("ses_1", e);
      expect(await cache.get("ses_1", "/workspace/a.txt")).toEqual(e);
      expect(await cache.get("ses_2", "/workspace/a.txt")).toBeUndefined();
      expect(await cache.get("ses_1", "/workspace/b.txt")).toBeUndefined();
    });

    it("a put replaces the entry and a delete removes only its own", async () => {
      const cache = new DbReadCache(current().db);
      await cache.put("ses_1", entry("/workspace/a.txt", "old\n"));
      await cache.put("ses_1", entry("/workspace/b.txt", "b\n"));
      const fresh = { ...entry("/workspace/a.txt", "new\nlines\n"), mtimeMs: 2 };
      await cache.put("ses_1", fresh);
      expect(await cache.get("ses_1", "/workspace/a.txt")).toEqual(fresh);
      await cache.delete("ses_1", "/workspace/a.txt");
      expect(await cache.get("ses_1", "/workspace/a.txt")).toBeUndefined();
      expect((await cache.get("ses_1", "/workspace/b.txt"))?.lines).toEqual(["b\n"]);
    });

    it("a put of a file read again unchanged rewrites nothing; a new hash, mtime or size replaces it", async () => {
      const db = current().db;
      const { readCache } = tablesOf(db);
      const cache = new DbReadCache(db);
      const e = entry("/workspace/a.txt", "same\n");
      // The row's own time shows whether a put rewrote it.
      const mark = () =>
        db.update(readCache).set({ updatedAt: "marked" }).where(eq(readCache.filePath, e.filePath));
      const rewritten = async () =>
        (
          await first(
            db.select({ at: readCache.updatedAt }).from(readCache).where(eq(readCache.filePath, e.filePath)),
          )
        )?.at !== "marked";
      await cache.put("ses_1", e);
      await mark();
      await cache.put("ses_1", { ...e });
      expect(await rewritten()).toBe(false);
      for (const change of [{ contentHash: "cd".repeat(32) }, { mtimeMs: 3.5 }, { sizeBytes: 99 }]) {
        await mark();
        await cache.put("ses_1", { ...e, ...change });
        expect(await rewritten(), JSON.stringify(change)).toBe(true);
        expect(await cache.get("ses_1", e.filePath)).toEqual({ ...e, ...change });
        await cache.put("ses_1", e);
      }
    });
  },
  { resetSql: "delete from read_cache" },
);
