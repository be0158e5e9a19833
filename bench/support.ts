/** Helpers the service benches share. */
import { rmSync } from "node:fs";
import Dockerode from "dockerode";
import { Redis } from "ioredis";
import type { RunningService } from "../src/cli/compose.js";
import type { Config } from "../src/config.js";

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

/** Stops the bench's service and removes everything it left: its containers, data and Redis keys. */
export async function tearDown(service: RunningService, config: Config, dataDir: string): Promise<void> {
  await service.stop();
  const docker = new Dockerode();
  const left = await docker.listContainers({
    all: true,
    filters: { label: [`toolshed.service=${config.SERVICE_ID}`] },
  });
  await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
  rmSync(dataDir, { recursive: true, force: true });
  await dropKeys(config.REDIS_URL, config.QUEUE_PREFIX);
}
