/**
 * Read-before-write bookkeeping (docs/permission.md#fixed-file-tools-keep-their-state): cache entries keyed
 * by the sandbox's real path and valid only while the sandbox still shows the same mtime *and* content hash;
 * Write and Edit refresh the entry with what they wrote.
 */
import { createHash } from "node:crypto";
import type { ReadFileResult } from "../../sandbox/sandbox.js";
import type { ReadCacheEntry } from "../read-cache.js";
import type { ToolRunContext } from "../run-context.js";
import { decodeUtf8, normalizeNewlines, splitLines } from "./text-lines.js";

/** Read never loads more than this many bytes into memory. */
export const MAX_READ_BYTES = 10 * 1024 * 1024;

/** sha256 hex of raw bytes. */
export function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The cache entry for what the sandbox returned (or what a tool just wrote). */
export function entryFor(realPath: string, data: Buffer, mtimeMs: number): ReadCacheEntry {
  return {
    filePath: realPath,
    lines: splitLines(normalizeNewlines(decodeUtf8(data))),
    mtimeMs,
    contentHash: sha256(data),
    sizeBytes: data.length,
  };
}

/** Reads the file as the sandbox sees it now; undefined when it cannot be read. */
export async function readCurrent(
  ctx: ToolRunContext,
  realPath: string,
): Promise<ReadFileResult | undefined> {
  try {
    return await ctx.sandbox.readFile(realPath, { maxBytes: MAX_READ_BYTES });
  } catch {
    return undefined;
  }
}

/**
 * The session's entry for `realPath` if the file is unchanged since it was cached (same mtime
 * and hash); a stale entry is deleted.
 */
export async function validEntry(
  ctx: ToolRunContext,
  realPath: string,
  current: ReadFileResult | undefined,
): Promise<ReadCacheEntry | undefined> {
  const entry = await ctx.readCache.get(ctx.sessionId, realPath);
  if (!entry) return undefined;
  if (current && current.mtimeMs === entry.mtimeMs && sha256(current.data) === entry.contentHash) {
    return entry;
  }
  await ctx.readCache.delete(ctx.sessionId, realPath);
  return undefined;
}

/** Records what a tool just wrote, so the next Write/Edit needs no re-read. */
export async function refreshEntry(
  ctx: ToolRunContext,
  realPath: string,
  written: Buffer,
  mtimeMs: number,
): Promise<void> {
  await ctx.readCache.put(ctx.sessionId, entryFor(realPath, written, mtimeMs));
}
