/**
 * The window in which a second delivery of a call can make its command run twice (NOTES-twice31.md):
 * the first attempt's command has ended, its finish is on its way, and a take-over claims the call
 * first. Opened here on a worker's own deps (its store and sandbox provider), at the first finish
 * of run 1 of the session's calls: `open(jobId)` makes the second delivery happen (a lapsed lock, a
 * held-back lease, a claim of the test's own), the finish waits until that claim is stored (run 2),
 * and the second attempt's first use of the sandbox waits until the first attempt has ended (its
 * refused finish and what follows it, up to waking its successors), so that whatever the first
 * attempt tells the executor reaches it before the second attempt's first request does.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { ServiceDeps } from "../../src/service/ports.js";
import { pollUntil } from "./wait-for-job.js";

export interface TakeoverWindow {
  /** Whether the window was opened (the session's first run-1 finish came). */
  opened(): boolean;
}

export function takeoverWindow(
  deps: Pick<ServiceDeps, "store" | "sandboxes">,
  sessionId: string,
  open: (jobId: string) => Promise<void>,
): TakeoverWindow {
  const { store, sandboxes } = deps;
  let opened = false;
  let firstEnded!: () => void;
  const ended = new Promise<void>((resolve) => {
    firstEnded = resolve;
  });
  const finish = store.finish.bind(store);
  store.finish = async (jobId, status, result, opts) => {
    if (!opened && opts?.run === 1 && (await store.findJob(jobId))?.sessionId === sessionId) {
      opened = true;
      await open(jobId);
      await pollUntil(
        async () => (await store.findJob(jobId))?.runs ?? 0,
        (runs) => runs >= 2,
        { timeoutMs: 30_000, intervalMs: 20, what: "the take-over claim" },
      );
    }
    return finish(jobId, status, result, opts);
  };
  // The last thing the first attempt does (after its finish, its events and its word to the
  // executor) is to wake the session's successors.
  const queuedAfter = store.queuedAfter.bind(store);
  store.queuedAfter = async (sid, seq, limit) => {
    if (opened && sid === sessionId) firstEnded();
    return queuedAfter(sid, seq, limit);
  };
  const acquire = sandboxes.acquire.bind(sandboxes);
  sandboxes.acquire = async (spec) => {
    if (opened && spec.sessionId === sessionId) await ended;
    return acquire(spec);
  };
  return { opened: () => opened };
}

/** The command the window's tests send: one line in `counter` per run, then "done". */
export const COUNTED = "echo x >> /workspace/counter; echo done";

/**
 * The call of COUNTED after a take-over in the window: the command ran once (one line in the
 * workspace's counter, read on the host), and the caller reads one run's result and two attempts
 * in the same executor instance, the first taken again by the same worker.
 */
export function expectOneRunTakenOver(
  window: TakeoverWindow,
  workspace: string,
  job: { status?: string; result?: unknown; attempts?: { outcome?: string; sandbox?: string }[] | null },
): void {
  const counter = join(workspace, "counter");
  const lines = existsSync(counter) ? readFileSync(counter, "utf8").split("\n").filter(Boolean) : [];
  const all = JSON.stringify({ job, lines });
  expect(window.opened(), all).toBe(true);
  expect(lines, all).toEqual(["x"]);
  expect(job.status, all).toBe("succeeded");
  expect(job.result, all).toMatchObject({ content: [{ text: "done\n" }] });
  expect(
    job.attempts?.map((a) => a.outcome),
    all,
  ).toEqual(["taken again by the same worker", "succeeded"]);
  expect(job.attempts?.[1]?.sandbox, all).toBe(job.attempts?.[0]?.sandbox);
}
