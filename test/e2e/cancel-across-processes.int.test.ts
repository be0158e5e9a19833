/**
 * A cancel answered by an API process while the call is on a worker process (attack22b): two
 * services on one Redis and one database, each with its own DATA_DIR (SQLite shared through a
 * link). The cancel that reads the row `queued` while the worker claims it, and the cancel whose
 * message the worker's subscriber missed, or that was never sent while the subscriber stayed up:
 * either way the command is stopped, and the caller is never told "before it started" of a
 * command that ran.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { expect, it } from "vitest";
import {
  apiAndWorkerOnOwnDisk,
  cancelWithoutMessage,
  claimBetweenCancelReadAndFlag,
} from "../support/api-and-worker.js";
import { seedBashTenant } from "../support/harness.js";
import { waitForJob } from "../support/wait-for-job.js";

const fx = apiAndWorkerOnOwnDisk();

const bash = (command: string) => ({ tool: "Bash", input: { command } });
const ranFile = (sid: string) => join(fx.workerDir, "sb", "workspaces", sid, "ran");

/** A session whose container is up on the worker. */
async function session(name: string) {
  const t = await seedBashTenant(fx.h.call, name);
  const sid = (await fx.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const calls = `/v1/sessions/${sid}/calls`;
  const first = await fx.h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") });
  expect(first.body.job.status).toBe("succeeded");
  return { t, sid, calls };
}

/** Whether the command wrote its file, read by a later call of the session (after its sleep). */
async function ran(t: { agentKey: string }, calls: string): Promise<boolean> {
  const r = await fx.h.call("POST", `${calls}?wait=60`, {
    key: t.agentKey,
    body: bash("sleep 3; test -e /workspace/ran && echo RAN || echo absent"),
  });
  return r.body.job.result.content[0].text.trim() === "RAN";
}

/** The call ended `cancelled` and its command never wrote its file; the session is deleted. */
async function expectStopped(t: { agentKey: string }, sid: string, calls: string, jid: string) {
  const job = await waitForJob(fx.h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  expect(await ran(t, calls), JSON.stringify(job.result)).toBe(false);
  expect(existsSync(ranFile(sid))).toBe(false);
  await fx.h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}

it("the API's cancel read the row `queued`, then the worker claimed it: the worker stops the command", async () => {
  const { t, sid, calls } = await session("xclaim");
  const restore = claimBetweenCancelReadAndFlag(fx.h.service.deps.store, fx.worker.deps.store);
  let jid: string;
  try {
    const sub = await fx.h.call("POST", calls, {
      key: t.agentKey,
      body: bash("sleep 2; echo ran > /workspace/ran"),
    });
    jid = sub.body.job.id;
    expect((await fx.h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey })).status).toBe(200);
  } finally {
    restore();
  }
  await expectStopped(t, sid, calls, jid);
}, 120_000);

/** A call running `sleep <s>` and then writing its file, on a new session of the worker. */
async function running(name: string, sleepS: number) {
  const { t, sid, calls } = await session(name);
  const sub = await fx.h.call("POST", calls, {
    key: t.agentKey,
    body: bash(`sleep ${sleepS}; echo ran > /workspace/ran`),
  });
  const jid = sub.body.job.id as string;
  await waitForJob(fx.h.call, t.agentKey, jid, { until: ["running"], timeoutMs: 30_000 });
  return { t, sid, calls, jid };
}

it("the cancel's message missed by the worker's subscriber: stopped once the subscriber is back", async () => {
  const { t, sid, calls, jid } = await running("xlost", 4);
  // The worker's subscriber is away while the message goes out (here: no message at all).
  await cancelWithoutMessage(fx.h, t.agentKey, jid);
  (fx.worker.deps.cancels as unknown as { sub: Redis }).sub.disconnect(true);
  await expectStopped(t, sid, calls, jid);
}, 120_000);

it("the cancel's message never sent and the worker's subscriber up: the worker's read of its flags stops the command", async () => {
  const { t, sid, calls, jid } = await running("xnomsg", 20);
  // Only the row's flag (the cancelling API could not reach Redis); nothing reconnects, so only
  // the worker's periodic read of its runs' flags (RECONCILE_INTERVAL_MS, 5 s) can see it. On
  // main the command ran its 20 s and wrote its file.
  await cancelWithoutMessage(fx.h, t.agentKey, jid);
  await expectStopped(t, sid, calls, jid);
}, 120_000);
