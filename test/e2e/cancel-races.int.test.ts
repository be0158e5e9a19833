/**
 * A cancel racing the call's own steps, seen from outside (attack22b): whatever the order, a
 * caller told `cancelled … before it started` never finds that the command ran. The cancel that
 * reads the row `queued` while a worker claims it on the queue path; a cancel of a call queued
 * again after an earlier attempt had reached its sandbox.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { type JobView, pollUntil, waitForJob } from "../support/wait-for-job.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: "serve" });
});
afterAll(async () => {
  await h?.stop();
});

const bash = (command: string) => ({ tool: "Bash", input: { command } });
const workspaceFile = (sid: string, name: string) => join(h.config.DATA_DIR, "sb", "workspaces", sid, name);
const textOf = (job: JobView) => JSON.stringify(job.result ?? null);

it("a cancel that read the row `queued` while a worker claimed it: the command is stopped, never run unsaid", async () => {
  const t = await seedBashTenant(h.call, "claimrace");
  // A new session: its first call goes through the placement queue (no hand-off).
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const store = h.service.deps.store;
  const flag = store.requestCancel.bind(store);
  const claim = store.claim.bind(store);
  // The order a worker and an API process may take: the cancel reads the row `queued`, the
  // worker claims it, then the cancel's flag lands.
  let cancelRead: () => void = () => {};
  const readByCancel = new Promise<void>((r) => (cancelRead = r));
  store.claim = async (jobId, opts) => {
    await readByCancel;
    return claim(jobId, opts);
  };
  store.requestCancel = async (jobId) => {
    cancelRead();
    await pollUntil(
      () => store.findJob(jobId),
      (row) => row?.status === "running",
      { timeoutMs: 30_000, intervalMs: 5, what: "the worker's claim" },
    );
    return flag(jobId);
  };
  let jid: string;
  try {
    const sub = await h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: t.agentKey,
      body: bash("sleep 2; echo ran > /workspace/ran"),
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(202);
    jid = sub.body.job.id;
    expect(sub.body.job.status).toBe("queued");
    const cancel = await h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey });
    expect(cancel.status).toBe(200);
  } finally {
    store.requestCancel = flag;
    store.claim = claim;
  }
  const job = await waitForJob(h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  // Past the command's end, had it not been stopped: did it run?
  const after = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
    key: t.agentKey,
    body: bash("sleep 3; test -e /workspace/ran && echo RAN || echo absent"),
  });
  const ran = after.body.job.result.content[0].text.trim() === "RAN";
  // Told it never started, the command must not have run; the run is stopped by the cancel.
  if (/before it started/.test(textOf(job))) expect(ran, textOf(job)).toBe(false);
  expect(ran, `the command ran after the cancel; the caller was told: ${textOf(job)}`).toBe(false);
  expect(existsSync(workspaceFile(sid, "ran"))).toBe(false);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 90_000);
