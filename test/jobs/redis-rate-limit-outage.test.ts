/** The limiter when Redis fails: a stand-in for the scripted client (no Redis needed). */
import type { Redis } from "ioredis";
import { expect, it } from "vitest";
import { RedisRateLimiter } from "../../src/jobs/redis-rate-limit.js";

it("fails a burst waiting on one batch at once, with the batch's error, and asks Redis once", async () => {
  let asked = 0;
  const failing = {
    // The scripts' definitions go nowhere; the limiter's one is answered here.
    defineCommand: () => {},
    toolshedHit: async () => {
      asked++;
      await new Promise((r) => setTimeout(r, 5));
      throw new Error("Connection is closed.");
    },
  } as unknown as Redis;
  const rl = new RedisRateLimiter(failing, "p");
  const answers = await Promise.allSettled(Array.from({ length: 5 }, () => rl.hit("t", 6000, 60)));
  expect(answers.map((a) => a.status)).toEqual(Array(5).fill("rejected"));
  expect(asked).toBe(1);
  // The next hit asks again (the failure is not remembered).
  await expect(rl.hit("t", 6000, 60)).rejects.toThrow(/closed/);
  expect(asked).toBe(2);
});
