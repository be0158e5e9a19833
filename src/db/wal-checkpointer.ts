/**
 * SQLite's WAL is copied back into the database file by a checkpoint, which by default runs inside
 * the commit that takes the log past 1,000 pages: that call pays a few milliseconds (every ~50
 * calls here). The service's connection instead leaves it to a thread of its own, which
 * checkpoints every CHECKPOINT_EVERY_MS on its own connection, off every call's path; the writer's
 * own threshold is raised to BACKSTOP_PAGES, so that a stalled or dead thread still bounds the log.
 */
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

const CHECKPOINT_EVERY_MS = 200;
/** The writer's own automatic checkpoint, now only a backstop (~40 MiB of log at 4 KiB pages). */
export const BACKSTOP_PAGES = 10_000;

/** Starts the thread for `sqlite`'s file; the returned function stops it (its connection closes with it). */
export function checkpointInBackground(sqlite: Database.Database, file: string): () => void {
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const worker = new Worker(new URL("./wal-checkpointer-thread.mjs", import.meta.url), {
    workerData: { file, everyMs: CHECKPOINT_EVERY_MS },
  });
  // It must never keep the process alive, nor take it down: without it the backstop checkpoints.
  worker.unref();
  worker.on("error", () => {
    try {
      sqlite.pragma("wal_autocheckpoint = 1000");
    } catch {
      // Closed meanwhile: nothing is written any more.
    }
  });
  return () => {
    // A checkpoint under way finishes first (SQLite's own call is not interrupted); an interrupted
    // one would be safe too: the log is the truth until a checkpoint completes.
    worker.postMessage("close");
    void worker.terminate();
  };
}
