/**
 * The per-session read-before-write cache (docs/permission.md#fixed-file-tools-keep-their-state). Durable:
 * the service implements it on SQLite; tests may use the in-memory one. Entries record what the *sandbox*
 * saw: mtime and a content hash read inside the container.
 */

export interface ReadCacheEntry {
  /** The path as the sandbox resolved it (absolute). */
  filePath: string;
  /** Normalised (LF) lines, each keeping its terminator. */
  lines: string[];
  mtimeMs: number;
  /** sha256 hex of the raw bytes the sandbox returned. */
  contentHash: string;
  sizeBytes: number;
}

export interface ReadCacheStore {
  get(sessionId: string, filePath: string): Promise<ReadCacheEntry | undefined>;
  put(sessionId: string, entry: ReadCacheEntry): Promise<void>;
  delete(sessionId: string, filePath: string): Promise<void>;
}
