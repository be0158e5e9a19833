/** An in-memory ReadCacheStore for unit tests (the service's one is durable, on SQLite). */
import type { ReadCacheEntry, ReadCacheStore } from "../../src/toolkit/read-cache.js";

/** Entries per session and path, copied in and out so tests cannot alias them. */
export class MemoryReadCache implements ReadCacheStore {
  private readonly entries = new Map<string, ReadCacheEntry>();

  async get(sessionId: string, filePath: string): Promise<ReadCacheEntry | undefined> {
    const entry = this.entries.get(key(sessionId, filePath));
    return entry && structuredClone(entry);
  }

  async put(sessionId: string, entry: ReadCacheEntry): Promise<void> {
    this.entries.set(key(sessionId, entry.filePath), structuredClone(entry));
  }

  async delete(sessionId: string, filePath: string): Promise<void> {
    this.entries.delete(key(sessionId, filePath));
  }

  /** How many entries the session holds (for assertions). */
  size(sessionId: string): number {
    return [...this.entries.keys()].filter((k) => k.startsWith(`${sessionId}\0`)).length;
  }
}

function key(sessionId: string, filePath: string): string {
  return `${sessionId}\0${filePath}`;
}
