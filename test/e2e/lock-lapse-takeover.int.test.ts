/**
 * The path by which load alone gives a call a second attempt (NOTES-twice31.md): its BullMQ lock
 * lapses (a worker's event loop or Redis too slow to renew it within JOB_LOCK_MS), the
 * stalled-job check puts the entry back, and the same worker, alive, gets it again and takes the
 * call over. Here the lapse is made, not waited for: the lock key is deleted at the one moment
 * that matters, after the command ended and before the first attempt's finish. The second
 * attempt re-attaches in the same executor: the command ran once, and the call says it succeeded
 * with two attempts, the first "taken again by the same worker".
 *
 * The seams are on the in-process worker's own deps (test/support/takeover-window.ts).
 */
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningService } from "../../src/cli/compose.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { COUNTED, expectOneRunTakenOver, takeoverWindow } from "../support/takeover-window.js";
import { waitForJob } from "../support/wait-for-job.js";

let h: Harness;
let w: RunningService;
let redis: Redis;

beforeAll(async () => {
  h = await startHarness({ mode: "api" });
  w = await h.start("worker");
  redis = new Redis(h.config.REDIS_URL);
});
afterAll(async () => {
  redis?.disconnect();
  await h?.stop();
});

/** Deletes the BullMQ lock of the job's queue entry, wherever it is (as if it had lapsed). */
async function dropLock(jobId: string): Promise<number> {
  let cursor = "0";
  let n = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `{${h.config.QUEUE_PREFIX}}:*:${jobId}:lock`);
    cursor = next;
    if (keys.length > 0) n += await redis.del(...keys);
  } while (cursor !== "0");
  return n;
}

it("a lock that lapses between the command's end and the finish: the same worker takes the call over, the command ran once", async () => {
  const t = await seedBashTenant(h.call, "lapse");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  // The lapse, at the one moment that matters.
  const window = takeoverWindow(w.deps, sid, async (jobId) => {
    if ((await dropLock(jobId)) !== 1) throw new Error(`no BullMQ lock of ${jobId} to drop`);
  });

  const sub = await h.call("POST", `/v1/sessions/${sid}/calls`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: COUNTED } },
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(202);
  const job = await waitForJob(h.call, t.agentKey, sub.body.job.id, { timeoutMs: 60_000 });
  expectOneRunTakenOver(window, join(h.config.DATA_DIR, "sb", "workspaces", sid), job);
}, 120_000);
