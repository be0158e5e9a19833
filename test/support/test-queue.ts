/** A calls queue of a test's own on the shared Redis (unique prefix), and its removal. */
import { randomBytes } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { type AnyPayload, CALLS_QUEUE } from "../../src/jobs/catalog.js";
import { BullJobQueue } from "../../src/jobs/queue.js";

export function testQueue(name: string) {
  const prefix = `tst-${name}-${randomBytes(4).toString("hex")}`;
  const redis = new Redis("redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
  const queue = new Queue<AnyPayload>(CALLS_QUEUE, { connection: redis, prefix });
  const adapter = new BullJobQueue(queue, { prefix, attempts: 1, backoffMs: 0, connection: redis });
  return {
    prefix,
    redis,
    queue,
    adapter,
    /** Drops every key of the prefix and closes the connections. */
    async drop() {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
