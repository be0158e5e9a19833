/** The Redis fixed-window limiter, on the real Redis with a unique prefix. */
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
