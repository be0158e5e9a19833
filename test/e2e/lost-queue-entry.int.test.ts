/**
 * The row is the source of truth: a queued job whose queue entry vanished (Redis flushed,
 * enqueue lost) is queued again when a worker starts, and runs.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { waitForJob } from "../support/wait-for-job.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: "api" });
});
afterAll(async () => {
  await h?.stop();
});

it("a worker start re-queues rows whose queue entry is gone", async () => {
  const t = await seedBashTenant(h.call);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const sub = await h.call("POST", `/v1/sessions/${sid}/calls`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "echo survived" } },
  });
  const jid = sub.body.job.id;
  const redis = new Redis(h.config.REDIS_URL);
  // Every queue of the run (placement and the hosts'), under BullMQ's hash-tagged prefix.
  const keys = await redis.keys(`{${h.config.QUEUE_PREFIX}}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();

  await h.start("worker");
  const job = await waitForJob(h.call, t.agentKey, jid, { timeoutMs: 60_000 });
  expect(job.status, JSON.stringify(job)).toBe("succeeded");
  expect(job.result.content[0].text).toBe("survived\n");
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
});
