/**
 * Redis held for one agent's output (attack24a): a Bash call that writes many megabytes in many
 * small pieces. Its job's event stream is bounded (the live forwarding stops at MAX_LIVE_CHARS,
 * the result at MAX_OUTPUT_CHARS, the stream is capped by EVENT_STREAM_MAXLEN) and expires
 * (EVENT_STREAM_TTL_S). Measured with MEMORY USAGE and TTL on the job's stream key.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";

let h: Harness;
let redis: Redis;
beforeAll(async () => {
  h = await startHarness();
  redis = new Redis(h.config.REDIS_URL);
});
afterAll(async () => {
  redis?.disconnect();
  await h?.stop();
});

it("a call writing 20 MB in 200,000 small pieces leaves a bounded, expiring stream", async () => {
  const t = await seedBashTenant(h.call, "flood");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const res = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
    key: t.agentKey,
    // Each piece is its own write: 200,000 × 100 bytes.
    body: {
      tool: "Bash",
      input: {
        command: `python3 -c 'import sys; [(sys.stdout.write("%099d\\n" % i), sys.stdout.flush()) for i in range(200000)]'`,
      },
    },
  });
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  expect(res.body.job.status).toBe("succeeded");
  const keys = await redis.keys(`${h.config.QUEUE_PREFIX}:job-events:${res.body.job.id}`);
  expect(keys).toHaveLength(1);
  const key = keys[0]!;
  const [bytes, ttl, entries] = await Promise.all([
    redis.memory("USAGE", key),
    redis.ttl(key),
    redis.xlen(key),
  ]);
  console.log(`stream ${key}: ${entries} entries, ${bytes} bytes, ttl ${ttl} s`);
  // 20 MB written: the stream keeps the live part (≤ 200,000 characters) and the result.
  expect(Number(bytes)).toBeLessThan(1024 * 1024);
  expect(entries).toBeLessThanOrEqual(h.config.EVENT_STREAM_MAXLEN + 100);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(h.config.EVENT_STREAM_TTL_S);
}, 120_000);
