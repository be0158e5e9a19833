/**
 * A cancel sent while Redis is away (attack22b): an API process and a worker process on a Redis
 * of the test's own. The worker runs a call; Redis dies; the API's cancel stores the row's flag and
 * answers with the job, although its pub/sub message cannot go out (and the worker's subscriber is
 * gone anyway). The worker reads its runs' flags every RECONCILE_INTERVAL_MS and stops the command
 * while Redis is still away: the call ends `cancelled` and its command never reaches its end.
 */
// suite: parallel — the Redis it stops is its own (startPrivateRedis, a free port)
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiAndWorkerOnOwnDisk } from "../support/api-and-worker.js";
import { seedBashTenant } from "../support/harness.js";
import { type PrivateRedis, startPrivateRedis } from "../support/private-redis.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
// Registered first, so run last (after hooks run as a stack): the services stop before Redis.
afterAll(async () => {
  await redis?.kill();
});
// A stop just after Redis is back may find BullMQ's close stuck on a fetch the restart caught: it
// is cut after QUEUE_CLOSE_PATIENCE_MS (2 s here rather than 10; stop-redis-outage tests the bound).
const fx = apiAndWorkerOnOwnDisk(() => ({ REDIS_URL: redis.url, QUEUE_CLOSE_PATIENCE_MS: "2000" }));

const bash = (command: string) => ({ tool: "Bash", input: { command } });

it("a cancel sent while Redis is down is answered with the job, and the worker stops the command before Redis is back", async () => {
  const t = await seedBashTenant(fx.h.call);
  const sid = (await fx.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const calls = `/v1/sessions/${sid}/calls`;
  expect(
    (await fx.h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") })).body.job.status,
  ).toBe("succeeded");
  const sub = await fx.h.call("POST", calls, {
    key: t.agentKey,
    body: bash("sleep 20; echo ran > /workspace/ran"),
  });
  const jid = sub.body.job.id as string;
  await waitForJob(fx.h.call, t.agentKey, jid, { until: ["running"], timeoutMs: 30_000, intervalMs: 50 });

  await redis.kill();
  const cancel = await fx.h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey });
  // The flag is the cancel: answered with the job, not a 503 (as on main), though no message went.
  expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
  expect(cancel.body.job.id).toBe(jid);
  expect((await fx.h.service.deps.store.findJob(jid))?.cancelRequested).toBe(true);
  // Stopped while Redis is still away: the row ends `cancelled` (read from the store: the API's
  // job view needs nothing of Redis either, but this says it without the HTTP path).
  const ended = await pollUntil(
    () => fx.h.service.deps.store.findJob(jid),
    (row) => row?.status === "cancelled",
    { timeoutMs: 30_000, intervalMs: 100, what: "the cancelled row while Redis is away" },
  );
  expect(JSON.stringify(ended?.result)).not.toMatch(/before it started/);
  await redis.start();

  const job = await waitForJob(fx.h.call, t.agentKey, jid, { timeoutMs: 60_000, intervalMs: 100 });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  // Stopped, not run to its end: its file, written only after the `sleep`, never is (before
  // attack22b the command ran its 12 s and the job ended `cancelled` over it, the file written).
  expect(existsSync(join(fx.workerDir, "sb", "workspaces", sid, "ran"))).toBe(false);
}, 120_000);
