/**
 * A cancel racing the call's own steps, seen from outside (attack22b): whatever the order, a
 * caller told `cancelled … before it started` never finds that the command ran. The cancel that
 * reads the row `queued` while a worker claims it on the queue path; a cancel of a call queued
 * again after an earlier attempt had reached its sandbox.
 */
// suite: parallel — the container it looks up is its own session's (by label)
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Dockerode from "dockerode";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { LABEL_SESSION } from "../../src/sandbox/container-spec.js";
import { cancelWithoutMessage, claimBetweenCancelReadAndFlag } from "../support/api-and-worker.js";
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
  const restore = claimBetweenCancelReadAndFlag(h.service.deps.store, h.service.deps.store);
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
    restore();
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

/**
 * A call whose command ran in part, then its sandbox died: it is queued again for a retry, and
 * `interrupt` (a cancel, a session deletion) runs while that retry's claim is held back (the
 * window a retry's backoff opens). The call's final view.
 */
async function interruptedWhileQueuedForRetry(
  name: string,
  interrupt: (t: { agentKey: string }, sid: string, jid: string) => Promise<void>,
): Promise<{ t: { agentKey: string }; sid: string; job: JobView }> {
  const t = await seedBashTenant(h.call, name);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const calls = `/v1/sessions/${sid}/calls`;
  expect(
    (await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") })).body.job.status,
  ).toBe("succeeded");
  const store = h.service.deps.store;
  const claim = store.claim.bind(store);
  let retry: string | undefined;
  let done: () => void = () => {};
  const interrupted = new Promise<void>((r) => (done = r));
  store.claim = async (jobId, opts) => {
    if (jobId === retry) await interrupted;
    return claim(jobId, opts);
  };
  let jid: string;
  try {
    const sub = await h.call("POST", calls, {
      key: t.agentKey,
      body: bash("echo x >> /workspace/counter; sleep 30"),
    });
    jid = sub.body.job.id;
    retry = jid;
    // Handed off: its first attempt is claimed by its insert, not by claim().
    expect(sub.body.job.status).toBe("running");
    const counter = workspaceFile(sid, "counter");
    await pollUntil(
      () => existsSync(counter) && readFileSync(counter, "utf8"),
      (text) => text === "x\n",
      { timeoutMs: 30_000, intervalMs: 20, what: "the command's side effect" },
    );
    const docker = new Dockerode();
    const [container] = await docker.listContainers({ filters: { label: [`${LABEL_SESSION}=${sid}`] } });
    await docker.getContainer(container!.Id).kill();
    // Its sandbox gone, the call is queued again for a retry.
    await waitForJob(h.call, t.agentKey, jid, { until: ["queued"], timeoutMs: 10_000, intervalMs: 20 });
    await interrupt(t, sid, jid);
  } finally {
    done();
    store.claim = claim;
  }
  return { t, sid, job: await waitForJob(h.call, t.agentKey, jid, { timeoutMs: 30_000 }) };
}

it("a cancel while the call waits for its retry after its sandbox died mid-command: told it may have partly run", async () => {
  const { t, sid, job } = await interruptedWhileQueuedForRetry("retrycancel", async (t, _sid, jid) => {
    expect((await h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey })).status).toBe(200);
  });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  expect(readFileSync(workspaceFile(sid, "counter"), "utf8")).toBe("x\n");
  // Its command did run in part: the caller must not read that it never started.
  expect(textOf(job)).not.toMatch(/before it started/);
  expect(textOf(job)).toMatch(/may have partly run/);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 90_000);

it("its session deleted while the call waits for its retry after its sandbox died mid-command: told it may have partly run", async () => {
  const { job } = await interruptedWhileQueuedForRetry("retrydelete", async (t, sid) => {
    expect((await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey })).status).toBe(204);
  });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  expect(textOf(job)).toMatch(/may have partly run/);
}, 90_000);

it("a cancel whose message was lost while the worker's subscriber reconnected: the run is stopped once it is back", async () => {
  const t = await seedBashTenant(h.call, "lostsub");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const calls = `/v1/sessions/${sid}/calls`;
  await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") });
  const sub = await h.call("POST", calls, {
    key: t.agentKey,
    body: bash("sleep 4; echo ran > /workspace/ran"),
  });
  const jid = sub.body.job.id as string;
  await waitForJob(h.call, t.agentKey, jid, { until: ["running"], timeoutMs: 30_000 });
  // The message never reaches the process running the call (sent while its subscriber was away):
  // only the row's flag is set.
  await cancelWithoutMessage(h, t.agentKey, jid);
  // The subscriber drops and comes back (a Redis restart, a network blip, an output-buffer kill).
  (h.service.deps.cancels as unknown as { sub: Redis }).sub.disconnect(true);
  const job = await waitForJob(h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  const after = await h.call("POST", `${calls}?wait=60`, {
    key: t.agentKey,
    body: bash("sleep 4; test -e /workspace/ran && echo RAN || echo absent"),
  });
  expect(after.body.job.result.content[0].text.trim(), "the cancelled command ran to its end").toBe("absent");
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 90_000);
