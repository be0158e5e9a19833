/** The read-before-write cache on SQLite (table `read_cache`), durable across worker restarts. */
import { and, eq } from "drizzle-orm";
import { nowIso } from "../../service/clock.js";
import type { ReadCacheEntry, ReadCacheStore } from "../../toolkit/read-cache.js";
import type { Db } from "../open.js";
import { readCache } from "../schema.js";

export class SqliteReadCache implements ReadCacheStore {
  constructor(private readonly db: Db) {}

  async get(sessionId: string, filePath: string): Promise<ReadCacheEntry | undefined> {
    const row = this.db
      .select()
      .from(readCache)
      .where(and(eq(readCache.sessionId, sessionId), eq(readCache.filePath, filePath)))
      .get();
    if (!row) return undefined;
    const { filePath: path, lines, mtimeMs, contentHash, sizeBytes } = row;
    return { filePath: path, lines, mtimeMs, contentHash, sizeBytes };
  }

  async put(sessionId: string, entry: ReadCacheEntry): Promise<void> {
    const values = { ...entry, sessionId, updatedAt: nowIso() };
    this.db
      .insert(readCache)
      .values(values)
      .onConflictDoUpdate({ target: [readCache.sessionId, readCache.filePath], set: values })
      .run();
  }

  async delete(sessionId: string, filePath: string): Promise<void> {
    this.db
      .delete(readCache)
      .where(and(eq(readCache.sessionId, sessionId), eq(readCache.filePath, filePath)))
      .run();
  }
}
