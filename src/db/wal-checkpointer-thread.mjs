// The thread of wal-checkpointer.ts (plain JavaScript: a worker thread does not get the
// TypeScript loader). Opens the database file on its own connection and checkpoints its WAL every
// `everyMs` (PASSIVE: it never waits for, nor blocks, a reader or the writer), until told "close".
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { file, everyMs } = workerData;
const db = new Database(file, { fileMustExist: true });
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Busy or locked now: the next turn tries again, and the writer's own threshold stays the backstop.
  }
}, everyMs);
parentPort.on("message", (message) => {
  if (message !== "close") return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
