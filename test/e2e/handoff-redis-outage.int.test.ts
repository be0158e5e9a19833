/**
 * Redis goes away (and comes back empty) under a call that a serve process runs in-process (the
 * hand-off): the call finishes once, in that one attempt (its lease is gone with Redis, but the
 * process's own reconciler leaves a call it runs to it), a submit meanwhile is 503, and calls run
 * again once Redis is back.
 */
// suite: parallel — the Redis it stops is its own (startPrivateRedis, a free port)
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { type PrivateRedis, startPrivateRedis } from "../support/private-redis.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

let redis: PrivateRedis;
let h: Harness;

beforeAll(async () => {
  redis = await startPrivateRedis();
  h = await startHarness({ mode: "serve", env: { REDIS_URL: redis.url, RECONCILE_INTERVAL_MS: "300" } });
});
afterAll(async () => {
  await h?.stop();
  await redis?.kill();
});

it("Redis restarted empty under a handed-off call: it ends once, in one attempt; calls run again after", async () => {
  const t = await seedBashTenant(h.call);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const calls = `/v1/sessions/${sid}/calls`;
  // The session is placed here first: the next call is handed off.
  const warm = await h.call("POST", `${calls}?wait=30`, { key: t.agentKey, body: bashCall("true") });
  expect(warm.body.job.status).toBe("succeeded");
  const sub = await h.call("POST", calls, {
    key: t.agentKey,
    body: bashCall("echo x >> /workspace/once; sleep 3; echo done"),
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(202);
  const id = sub.body.job.id as string;
  expect(h.service.deps.handoff?.ended(id)).toBeDefined();
  await waitForJob(h.call, t.agentKey, id, { until: ["running"], timeoutMs: 30_000, intervalMs: 50 });

  await redis.kill();
  const during = await h.call("POST", calls, { key: t.agentKey, body: bashCall("echo during") });
  expect(during.status, JSON.stringify(during.body)).toBe(503);
  await redis.start();

  const job = await waitForJob(h.call, t.agentKey, id, { timeoutMs: 60_000, intervalMs: 250 });
  expect(job.status, JSON.stringify(job)).toBe("succeeded");
  expect(job.result.content[0].text).toBe("done\n");
  expect(job.attempts).toHaveLength(1);
  const path = join(h.config.DATA_DIR, "sb", "workspaces", sid, "once");
  expect(existsSync(path) ? readFileSync(path, "utf8") : "").toBe("x\n");
  // Back: a new call is accepted and runs (the readiness probe may need a moment to see Redis).
  const after = await pollUntil(
    () => h.call("POST", `${calls}?wait=30`, { key: t.agentKey, body: bashCall("cat /workspace/once") }),
    (r) => r.status !== 503,
    { timeoutMs: 30_000, intervalMs: 250, what: "a submit accepted after the outage" },
  );
  expect(after.body.job?.status, JSON.stringify(after.body)).toBe("succeeded");
  expect(after.body.job.result.content[0].text).toBe("x\n");
}, 120_000);

function bashCall(command: string) {
  return { tool: "Bash", input: { command } };
}
