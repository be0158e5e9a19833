import { describe, expect, it } from "vitest";
import { RunReadCache } from "../../../src/service/worker/run-read-cache.js";
import { MemoryReadCacheStore } from "../../../src/toolkit/memory-read-cache.js";
import type { ReadCacheEntry } from "../../../src/toolkit/read-cache.js";

// A run's read cache (run-read-cache.ts): its puts are held for the finish, which stores them with
// the job's end. What the run deletes (a stale entry) must not come back with the finish, and
// what it holds must be what it put last for each file.
const entry = (filePath: string, text: string): ReadCacheEntry => ({
  filePath,
  lines: [text],
  mtimeMs: 1.5,
  contentHash: text.padEnd(64, "0"),
  sizeBytes: text.length,
});

describe("a run's read cache", () => {
  it("holds its puts for the finish, reads them back, and keeps the last per file", async () => {
    const store = new MemoryReadCacheStore();
    const run = new RunReadCache(store, "ses_1");
    await run.put("ses_1", entry("/w/a", "a1"));
    await run.put("ses_1", entry("/w/a", "a2"));
    await run.put("ses_1", entry("/w/b", "b"));
    expect(await store.get("ses_1", "/w/a")).toBeUndefined();
    expect((await run.get("ses_1", "/w/a"))?.lines).toEqual(["a2"]);
    expect(run.held()).toEqual({ sessionId: "ses_1", entries: [entry("/w/a", "a2"), entry("/w/b", "b")] });
  });

  it("a delete reaches the store and drops what the run held, so that the finish does not store it again", async () => {
    const store = new MemoryReadCacheStore();
    await store.put("ses_1", entry("/w/a", "old"));
    const run = new RunReadCache(store, "ses_1");
    await run.put("ses_1", entry("/w/a", "new"));
    await run.delete("ses_1", "/w/a");
    expect(await run.get("ses_1", "/w/a")).toBeUndefined();
    expect(await store.get("ses_1", "/w/a")).toBeUndefined();
    expect(run.held().entries).toEqual([]);
  });

  it("another session's entries go to the store as they are, never with this run's finish", async () => {
    const store = new MemoryReadCacheStore();
    await store.put("ses_1", entry("/w/a", "stored"));
    const run = new RunReadCache(store, "ses_1");
    await run.put("ses_2", entry("/w/a", "other"));
    expect((await store.get("ses_2", "/w/a"))?.lines).toEqual(["other"]);
    expect((await run.get("ses_2", "/w/a"))?.lines).toEqual(["other"]);
    // Nothing of its own for that file: the store's entry.
    expect((await run.get("ses_1", "/w/a"))?.lines).toEqual(["stored"]);
    expect(run.held().entries).toEqual([]);
    // And this run's own entries are never another session's.
    await run.put("ses_1", entry("/w/c", "mine"));
    expect(await run.get("ses_2", "/w/c")).toBeUndefined();
  });
});
