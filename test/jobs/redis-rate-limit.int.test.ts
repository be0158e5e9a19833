/** The Redis fixed-window limiter, on the real Redis with a unique prefix. */
// suite: parallel — the shared Redis, under a prefix of its own
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, expect, it } from "vitest";
import { RedisRateLimiter } from "../../src/jobs/redis-rate-limit.js";

const prefix = `tst-rl-${randomBytes(4).toString("hex")}`;
const redis = new Redis("redis://127.0.0.1:6379");
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

// An hour-long window keeps the test clear of a window boundary.
it("allows `limit` hits per window, then answers the seconds to wait", async () => {
  const rl = new RedisRateLimiter(redis, prefix);
  expect(await rl.hit("t1", 2, 3600)).toBeNull();
  expect(await rl.hit("t1", 2, 3600)).toBeNull();
  const wait = await rl.hit("t1", 2, 3600);
  expect(wait).toBeGreaterThan(0);
  expect(wait).toBeLessThanOrEqual(3600);
  expect(await rl.hit("t2", 2, 3600)).toBeNull();
});

it("counts a large limit's hits in batches: most hits make no Redis write", async () => {
  const rl = new RedisRateLimiter(redis, prefix);
  // A limit of 1,000: batches of 10, so 25 hits take three batches (30 counted in Redis).
  for (let i = 0; i < 25; i++) expect(await rl.hit("batched", 1000, 3600)).toBeNull();
  const [key] = await redis.keys(`${prefix}:rate:batched:*`);
  expect(Number(await redis.get(key!))).toBe(30);
});

it("never allows more than the limit across processes, and loses at most a batch each", async () => {
  // Two processes' limiters on one limit of 300 (batches of 3), hitting in turns until both are refused.
  const a = new RedisRateLimiter(redis, prefix);
  const b = new RedisRateLimiter(redis, prefix);
  let allowed = 0;
  let refusedA = false;
  let refusedB = false;
  const turn = async (rl: RedisRateLimiter) => {
    const allowedNow = (await rl.hit("shared", 300, 3600)) === null;
    if (allowedNow) allowed++;
    return !allowedNow;
  };
  while (!refusedA || !refusedB) {
    if (!refusedA) refusedA = await turn(a);
    if (!refusedB) refusedB = await turn(b);
  }
  expect(allowed).toBeLessThanOrEqual(300);
  expect(allowed).toBeGreaterThanOrEqual(300 - 2 * 2);
  // Concurrent hits of one process, past the limit: still never more than it.
  const c = new RedisRateLimiter(redis, prefix);
  const answers = await Promise.all(Array.from({ length: 150 }, () => c.hit("burst", 100, 3600)));
  expect(answers.filter((w) => w === null).length).toBe(100);
});

it("takes one batch at a time: a concurrent burst far below the limit is all allowed", async () => {
  // A limit of 6,000 (batches of 60): 500 hits at once, as a tenant's burst of submits. Each hit
  // taking a batch of its own would count 30,000 in Redis and refuse most of them.
  const rl = new RedisRateLimiter(redis, prefix);
  const answers = await Promise.all(Array.from({ length: 500 }, () => rl.hit("concurrent", 6000, 3600)));
  expect(answers.filter((w) => w !== null)).toEqual([]);
  const [key] = await redis.keys(`${prefix}:rate:concurrent:*`);
  expect(Number(await redis.get(key!))).toBe(540);
});

it("once past the limit in a window, refuses the rest of it without asking Redis", async () => {
  const rl = new RedisRateLimiter(redis, prefix);
  expect(await rl.hit("full", 1, 3600)).toBeNull();
  expect(await rl.hit("full", 1, 3600)).toBeGreaterThan(0);
  const [key] = await redis.keys(`${prefix}:rate:full:*`);
  const counted = Number(await redis.get(key!));
  expect(await rl.hit("full", 1, 3600)).toBeGreaterThan(0);
  expect(Number(await redis.get(key!))).toBe(counted);
  // A limit raised within the window is asked about again, and holds.
  expect(await rl.hit("full", 100, 3600)).toBeNull();
});

it("counts in Redis's windows: a host 10 minutes ahead and one on time share a tenant's limit", async () => {
  // Clear of a minute's end, so that the hits below fall in one window of Redis's clock.
  const [s] = await redis.time();
  const intoMinute = Number(s) % 60;
  if (intoMinute > 57) await new Promise((r) => setTimeout(r, (61 - intoMinute) * 1000));
  const onTime = new RedisRateLimiter(redis, prefix);
  const ahead = new RedisRateLimiter(redis, prefix, () => Date.now() + 600_000);
  // A limit of 10 a minute (below BATCH_SHARE: counted hit by hit), 6 hits on each host.
  let allowed = 0;
  for (let i = 0; i < 6; i++)
    for (const rl of [onTime, ahead]) if ((await rl.hit("skewed", 10, 60)) === null) allowed++;
  expect(allowed).toBe(10);
});
