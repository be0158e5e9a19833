/**
 * A cancel answered by an API process while the call is on a worker process (attack22b): two
 * services on one Redis and one database, each with its own DATA_DIR (SQLite shared through a
 * link). The cancel that reads the row `queued` while the worker claims it, and the cancel whose
 * message the worker's subscriber missed: either way the command is stopped, and the caller is
 * never told "before it started" of a command that ran.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningService, startService } from "../../src/cli/compose.js";
import { type Harness, seedBashTenant, startHarness, unmountUnder } from "../support/harness.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

let h: Harness;
let worker: RunningService;
let workerDir: string;
beforeAll(async () => {
  h = await startHarness({ mode: "api" });
  workerDir = mkdtempSync(join(tmpdir(), "tsw-"));
  symlinkSync(join(h.config.DATA_DIR, "toolshed.db"), join(workerDir, "toolshed.db"));
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

const bash = (command: string) => ({ tool: "Bash", input: { command } });
const ranFile = (sid: string) => join(workerDir, "sb", "workspaces", sid, "ran");

/** A session whose container is up on the worker. */
async function session(name: string) {
  const t = await seedBashTenant(h.call, name);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const calls = `/v1/sessions/${sid}/calls`;
  const first = await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") });
  expect(first.body.job.status).toBe("succeeded");
  return { t, sid, calls };
}

/** Whether the command wrote its file, read by a later call of the session (after its sleep). */
async function ran(t: { agentKey: string }, calls: string): Promise<boolean> {
  const r = await h.call("POST", `${calls}?wait=60`, {
    key: t.agentKey,
    body: bash("sleep 3; test -e /workspace/ran && echo RAN || echo absent"),
  });
  return r.body.job.result.content[0].text.trim() === "RAN";
}

it("the API's cancel read the row `queued`, then the worker claimed it: the worker stops the command", async () => {
  const { t, sid, calls } = await session("xclaim");
  const api = h.service.deps.store;
  const flag = api.requestCancel.bind(api);
  const wstore = worker.deps.store;
  const claim = wstore.claim.bind(wstore);
  let cancelRead: () => void = () => {};
  const readByCancel = new Promise<void>((r) => (cancelRead = r));
  wstore.claim = async (jobId, opts) => {
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
  let jid: string;
  try {
    const sub = await h.call("POST", calls, {
      key: t.agentKey,
      body: bash("sleep 2; echo ran > /workspace/ran"),
    });
    jid = sub.body.job.id;
    expect((await h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey })).status).toBe(200);
  } finally {
    api.requestCancel = flag;
    wstore.claim = claim;
  }
  const job = await waitForJob(h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  expect(await ran(t, calls), JSON.stringify(job.result)).toBe(false);
  expect(existsSync(ranFile(sid))).toBe(false);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 120_000);

it("the cancel's message missed by the worker's subscriber: stopped once the subscriber is back", async () => {
  const { t, sid, calls } = await session("xlost");
  const sub = await h.call("POST", calls, {
    key: t.agentKey,
    body: bash("sleep 4; echo ran > /workspace/ran"),
  });
  const jid = sub.body.job.id as string;
  await waitForJob(h.call, t.agentKey, jid, { until: ["running"], timeoutMs: 30_000 });
  // The worker's subscriber is away while the message goes out (here: no message at all).
  const cancels = h.service.deps.cancels;
  const send = cancels.requestCancel.bind(cancels);
  cancels.requestCancel = async () => {};
  try {
    expect((await h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey })).status).toBe(200);
  } finally {
    cancels.requestCancel = send;
  }
  (worker.deps.cancels as unknown as { sub: Redis }).sub.disconnect(true);
  const job = await waitForJob(h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  expect(await ran(t, calls), JSON.stringify(job.result)).toBe(false);
  expect(existsSync(ranFile(sid))).toBe(false);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 120_000);
