/** Helpers the service benches share. */
import { Redis } from "ioredis";

/** Redis is shared: remove one run's queue, streams and counters (every key under `prefix:`). */
export async function dropKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== "0");
  redis.disconnect();
}
