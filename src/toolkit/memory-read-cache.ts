/** An in-memory ReadCacheStore for library hosts (the service's one is durable, on SQLite). */
import type { ReadCacheEntry, ReadCacheStore } from "./read-cache.js";

/** Entries per session and path, copied in and out so callers cannot alias them. */
export class MemoryReadCacheStore implements ReadCacheStore {
  private readonly entries = new Map<string, ReadCacheEntry>();

  async get(sessionId: string, filePath: string): Promise<ReadCacheEntry | undefined> {
    const entry = this.entries.get(`${sessionId}\0${filePath}`);
    return entry && structuredClone(entry);
  }

  async put(sessionId: string, entry: ReadCacheEntry): Promise<void> {
    this.entries.set(`${sessionId}\0${entry.filePath}`, structuredClone(entry));
  }

  async delete(sessionId: string, filePath: string): Promise<void> {
    this.entries.delete(`${sessionId}\0${filePath}`);
  }
}
