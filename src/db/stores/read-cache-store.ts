/** The read-before-write cache in the database (table `read_cache`), durable across worker restarts. */
import { and, eq } from "drizzle-orm";
import { nowIso } from "../../service/clock.js";
import type { ReadCacheEntry, ReadCacheStore } from "../../toolkit/read-cache.js";
import { type Db, dialectOf, first, tablesOf } from "../db.js";
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
    const values = { ...entry, sessionId, updatedAt: nowIso() };
    if (dialectOf(this.db) === "sqlite") {
      // Exactly the entry's fields (a caller's extra ones must not reach the statement).
      const { filePath, lines, mtimeMs, contentHash, sizeBytes, updatedAt } = values;
      preparedFor(this.db).putReadCache.run({
        sessionId,
        filePath,
        lines,
        mtimeMs,
        contentHash,
        sizeBytes,
        updatedAt,
      });
      return;
    }
    const { readCache } = tablesOf(this.db);
    await this.db
      .insert(readCache)
      .values(values)
      .onConflictDoUpdate({ target: [readCache.sessionId, readCache.filePath], set: values });
  }

  async delete(sessionId: string, filePath: string): Promise<void> {
    const { readCache } = tablesOf(this.db);
    await this.db
      .delete(readCache)
      .where(and(eq(readCache.sessionId, sessionId), eq(readCache.filePath, filePath)));
  }
}
