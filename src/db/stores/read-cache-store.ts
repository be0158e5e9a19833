/** The read-before-write cache in the database (table `read_cache`), durable across worker restarts. */
import { and, eq } from "drizzle-orm";
import { nowIso } from "../../service/clock.js";
import type { ReadCacheEntry, ReadCacheStore } from "../../toolkit/read-cache.js";
import { type Db, dialectOf, first, tablesOf } from "../db.js";
import { readCacheReplacement } from "../job-predicates.js";
import { preparedFor } from "../prepared.js";

export class DbReadCache implements ReadCacheStore {
  constructor(private readonly db: Db) {}

  async get(sessionId: string, filePath: string): Promise<ReadCacheEntry | undefined> {
    const { readCache } = tablesOf(this.db);
    const row = await first(
      this.db
        .select()
        .from(readCache)
        .where(and(eq(readCache.sessionId, sessionId), eq(readCache.filePath, filePath)))
        .limit(1),
    );
    if (!row) return undefined;
    const { filePath: path, lines, mtimeMs, contentHash, sizeBytes } = row;
    return { filePath: path, lines, mtimeMs, contentHash, sizeBytes };
  }

  async put(sessionId: string, entry: ReadCacheEntry): Promise<void> {
    if (dialectOf(this.db) === "sqlite") return putReadCacheEntry(this.db, sessionId, entry, nowIso());
    const values = readCacheRow(sessionId, entry, nowIso());
    const { readCache } = tablesOf(this.db);
    await this.db
      .insert(readCache)
      .values(values)
      .onConflictDoUpdate({
        target: [readCache.sessionId, readCache.filePath],
        ...readCacheReplacement(readCache),
      });
  }

  async delete(sessionId: string, filePath: string): Promise<void> {
    const { readCache } = tablesOf(this.db);
    await this.db
      .delete(readCache)
      .where(and(eq(readCache.sessionId, sessionId), eq(readCache.filePath, filePath)));
  }
}

/** The row of an entry: exactly the entry's fields (a caller's extra ones must not reach a statement). */
export function readCacheRow(sessionId: string, entry: ReadCacheEntry, updatedAt: string) {
  const { filePath, lines, mtimeMs, contentHash, sizeBytes } = entry;
  return { sessionId, filePath, lines, mtimeMs, contentHash, sizeBytes, updatedAt };
}

/** Replaces the file's entry, on SQLite (a prepared statement; inside a caller's transaction too). */
export function putReadCacheEntry(db: Db, sessionId: string, entry: ReadCacheEntry, updatedAt: string): void {
  preparedFor(db).putReadCache.run(readCacheRow(sessionId, entry, updatedAt));
}
