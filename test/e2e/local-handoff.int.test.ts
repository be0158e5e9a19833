/**
 * Serve mode hands a just-stored call to this process's worker without the queue (src/jobs/
 * local-handoff.ts): the row stays the truth (the insert claims it), the session's order holds (a
 * call that must wait goes through the queue), and a call whose process died between its row and
 * its run is queued again by the reconciler and taken over: it runs once. The crash of a serve process during handed-off calls is
 * in local-handoff-crash.int.test.ts (its own processes).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CallHandoff } from "../../src/service/ports.js";
import { cancelWithoutMessage } from "../support/api-and-worker.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { waitForJob, waitForJobs } from "../support/wait-for-job.js";

let h: Harness;
let enqueued: string[];
beforeAll(async () => {
  h = await startHarness({ mode: "serve", env: { RECONCILE_INTERVAL_MS: "300" } });
  enqueued = [];
  const queue = h.service.deps.queue;
  const enqueue = queue.enqueue.bind(queue);
  queue.enqueue = (jobId, opts) => {
    enqueued.push(jobId);
    return enqueue(jobId, opts);
  };
});
afterAll(async () => {
  await h?.stop();
});

const bash = (command: string) => ({ tool: "Bash", input: { command } });

it("runs calls of a session pinned here without the queue, and queues the one that must wait", async () => {
  const t = await seedBashTenant(h.call);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const calls = `/v1/sessions/${sid}/calls`;
  // The first call places the session (through the queue); the next ones are handed off.
  const first = await h.call("POST", `${calls}?wait=60`, {
    key: t.agentKey,
    body: bash("echo 0 > /workspace/o"),
  });
  expect(first.body.job.status).toBe("succeeded");
  expect(h.service.deps.handoff).toBeDefined();
  const before = enqueued.length;
  for (let i = 1; i <= 3; i++) {
    const r = await h.call("POST", `${calls}?wait=60`, {
      key: t.agentKey,
      body: bash(`echo ${i} >> /workspace/o`),
    });
    expect(r.body.job.status).toBe("succeeded");
  }
  expect(enqueued.length).toBe(before);

  // A call submitted while the one before it runs cannot be claimed yet: it goes to the queue
  // and runs after it, as before.
  const slow = await h.call("POST", calls, {
    key: t.agentKey,
    body: bash("sleep 0.5; echo 4 >> /workspace/o"),
  });
  const next = await h.call("POST", calls, { key: t.agentKey, body: bash("echo 5 >> /workspace/o") });
  expect(enqueued).not.toContain(slow.body.job.id);
  expect(enqueued).toContain(next.body.job.id);
  const done = await waitForJobs(h.call, t.agentKey, [slow.body.job.id, next.body.job.id]);
  expect(done.map((j) => j.status)).toEqual(["succeeded", "succeeded"]);
  const log = await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("cat /workspace/o") });
  expect(log.body.job.result.content[0].text).toBe("0\n1\n2\n3\n4\n5\n");
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 120_000);

it("a call whose process stopped between its row and its run is queued again and runs once", async () => {
  const t = await seedBashTenant(h.call, "lost");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const calls = `/v1/sessions/${sid}/calls`;
  await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") });
  // As if the process died right after its insert claimed the row: the slot's claim is made
  // (the row is stored `running`, attempt 1 open) but the run never starts, and no lease is held.
  const real = h.service.deps.handoff as CallHandoff;
  const dropped: string[] = [];
  h.service.deps.handoff = {
    reserve: (jobId, sessionId) => {
      const slot = real.reserve(jobId, sessionId);
      slot?.release();
      return slot && { claim: slot.claim, run: () => void dropped.push(jobId), release: () => {} };
    },
    ended: () => undefined,
  };
  let jid: string;
  try {
    const sub = await h.call("POST", calls, { key: t.agentKey, body: bash("echo once >> /workspace/runs") });
    jid = sub.body.job.id;
    expect(sub.body.job.status).toBe("running");
  } finally {
    h.service.deps.handoff = real;
  }
  expect(dropped).toEqual([jid]);
  const job = await waitForJob(h.call, t.agentKey, jid, { timeoutMs: 60_000 });
  expect(job.status, JSON.stringify(job)).toBe("succeeded");
  // Taken over by the same process: the dropped attempt is closed (not "worker lost": it lives), the second ran it.
  expect(job.attempts.map((a: { outcome?: string }) => a.outcome)).toEqual([
    "taken again by the same worker",
    "succeeded",
  ]);
  expect(enqueued).toContain(jid);
  const runs = await h.call("POST", `${calls}?wait=60`, {
    key: t.agentKey,
    body: bash("cat /workspace/runs"),
  });
  expect(runs.body.job.result.content[0].text).toBe("once\n");
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 120_000);

it("a cancel whose message to the worker was lost still stops the command: the worker reads its runs' flags", async () => {
  const t = await seedBashTenant(h.call, "lostcancel");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const calls = `/v1/sessions/${sid}/calls`;
  await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") });
  const sub = await h.call("POST", calls, { key: t.agentKey, body: bash("sleep 20; echo ran") });
  const jid = sub.body.job.id;
  await waitForJob(h.call, t.agentKey, jid, { until: ["running"], timeoutMs: 30_000 });
  // Only the row's flag is set; the handed-off run hears it at its worker's next read of the
  // flags (RECONCILE_INTERVAL_MS). Before round 11 it ran its 20 s and ended `cancelled` over "ran".
  await cancelWithoutMessage(h, t.agentKey, jid);
  const job = await waitForJob(h.call, t.agentKey, jid, { timeoutMs: 60_000 });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  expect(JSON.stringify(job.result)).not.toContain("ran");
  expect(job.attempts.at(-1).outcome).toBe("cancelled");
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 120_000);
