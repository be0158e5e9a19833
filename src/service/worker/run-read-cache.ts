/**
 * A run's view of the session's read cache: what the tool puts is held until the run's finish
 * stores it with the job's end (FinishOptions.readCache: on Postgres in the same statement),
 * rather than by a write of its own in the middle of the run. The tool reads its own puts back; other entries come
 * from the store. An entry a run never finishes with (the sandbox went away, the tool crashed)
 * is dropped: the next write to that file asks for a Read first, as for a file never read.
 */
import type { ReadCacheEntry, ReadCacheStore } from "../../toolkit/read-cache.js";

export class RunReadCache implements ReadCacheStore {
  private readonly entries = new Map<string, ReadCacheEntry>();

  constructor(
    private readonly store: ReadCacheStore,
    private readonly sessionId: string,
  ) {}

  async get(sessionId: string, filePath: string): Promise<ReadCacheEntry | undefined> {
    const own = sessionId === this.sessionId ? this.entries.get(filePath) : undefined;
    return own ?? this.store.get(sessionId, filePath);
  }

  async put(sessionId: string, entry: ReadCacheEntry): Promise<void> {
    if (sessionId !== this.sessionId) return this.store.put(sessionId, entry);
    this.entries.set(entry.filePath, entry);
  }

  async delete(sessionId: string, filePath: string): Promise<void> {
    if (sessionId === this.sessionId) this.entries.delete(filePath);
    await this.store.delete(sessionId, filePath);
  }

  /** What the finish stores: the entries put and not deleted since, one per file. */
  held(): { sessionId: string; entries: ReadCacheEntry[] } {
    return { sessionId: this.sessionId, entries: [...this.entries.values()] };
  }
}
