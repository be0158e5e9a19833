/**
 * What the cancel tests (and the tests of a worker on another disk) share: an API process and a worker process with DATA_DIRs of their own
 * (another host's disk: on SQLite the database file is shared through a link), the order of a
 * cancel that reads a row `queued` while a worker claims it, and a cancel whose message is lost.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { type RunningService, startService } from "../../src/cli/compose.js";
import type { JobStore } from "../../src/db/store.js";
import { type Harness, startHarness, unmountUnder } from "./harness.js";
import { pollUntil } from "./wait-for-job.js";

export interface ApiAndWorker {
  readonly h: Harness;
  readonly worker: RunningService;
  readonly workerDir: string;
}

/** A test file's API harness and worker process; `env()` is read when they start. */
export function apiAndWorkerOnOwnDisk(env: () => Record<string, string> = () => ({})): ApiAndWorker {
  let h: Harness | undefined;
  let worker: RunningService | undefined;
  let workerDir: string | undefined;
  beforeAll(async () => {
    h = await startHarness({ mode: "api", env: env() });
    workerDir = mkdtempSync(join(tmpdir(), "tsw-"));
    symlinkSync(join(h.config.DATA_DIR, "toolshed.db"), join(workerDir, "toolshed.db"));
    // The secret key from configuration, as several hosts need it (else each DATA_DIR makes its own).
    const secret = join(h.config.DATA_DIR, "secret.key");
    if (existsSync(secret)) symlinkSync(secret, join(workerDir, "secret.key"));
    worker = await startService({ ...h.config, PORT: 0, DATA_DIR: workerDir }, "worker");
  }, 120_000);
  afterAll(async () => {
    await worker?.stop().catch(() => undefined);
    await h?.stop();
    if (workerDir) {
      unmountUnder(workerDir);
      rmSync(workerDir, { recursive: true, force: true });
    }
  });
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error("the processes are not started yet");
    return v;
  };
  return {
    get h() {
      return started(h);
    },
    get worker() {
      return started(worker);
    },
    get workerDir() {
      return started(workerDir);
    },
  };
}

/**
 * Until `restore()`: `worker`'s claims wait for a cancel to have read its row, and the cancel's
 * flag (through `api`) waits for the claim, so a cancel reads `queued` and flags a `running` row.
 */
export function claimBetweenCancelReadAndFlag(api: JobStore, worker: JobStore): () => void {
  const flag = api.requestCancel.bind(api);
  const claim = worker.claim.bind(worker);
  let cancelRead: () => void = () => {};
  const readByCancel = new Promise<void>((r) => (cancelRead = r));
  worker.claim = async (jobId, opts) => {
    await readByCancel;
    return claim(jobId, opts);
  };
  api.requestCancel = async (jobId) => {
    cancelRead();
    await pollUntil(
      () => api.findJob(jobId),
      (row) => row?.status === "running",
      { timeoutMs: 30_000, intervalMs: 5, what: "the worker's claim" },
    );
    return flag(jobId);
  };
  return () => {
    api.requestCancel = flag;
    worker.claim = claim;
  };
}

/** Cancels `jid` through `h`'s API with no cancel message sent: only the row's flag is set. */
export async function cancelWithoutMessage(h: Harness, key: string, jid: string): Promise<void> {
  const cancels = h.service.deps.cancels;
  const send = cancels.requestCancel.bind(cancels);
  cancels.requestCancel = async () => {};
  try {
    expect((await h.call("POST", `/v1/jobs/${jid}/cancel`, { key })).status).toBe(200);
  } finally {
    cancels.requestCancel = send;
  }
}
