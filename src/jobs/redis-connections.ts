/**
 * The service's Redis connections. ioredis by default queues commands while disconnected and
 * retries them forever, so a submit during an outage would hang: the `commands` connection
 * (queue adds, rate limits, events, readiness) fails fast instead — no offline queue, one
 * retry, a command timeout. Only the subscriber and BullMQ's worker, which must outlive an
 * outage, wait for Redis to come back.
 */
import { Redis } from "ioredis";
import type { Logger } from "../log.js";
import { redisOptionsFromUrl } from "./redis-url.js";

export interface RedisConnections {
  /** Fails fast while Redis is away (submit, events, rate limits, readiness). */
  commands: Redis;
  /** Pub/sub; reconnects and resubscribes by itself. */
  subscriber: Redis;
  /** Calls `fn` each time Redis answers again after being lost; returns unsubscribe. */
  onReconnect(fn: () => void): () => void;
  /** A connection for BullMQ's worker (blocking commands, retried forever), made on demand. */
  forWorker(): Redis;
  close(): void;
}

const PATIENT = { enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined };

/** Opens the connections and waits until Redis first answers. */
export async function openRedis(
  url: string,
  opts: { commandTimeoutMs: number; logger: Logger },
): Promise<RedisConnections> {
  const commands = new Redis({
    ...redisOptionsFromUrl(url),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: opts.commandTimeoutMs,
    connectTimeout: Math.max(opts.commandTimeoutMs, 2000),
    // Keep trying, at most every second, so that recovery is noticed within seconds.
    retryStrategy: (times) => Math.min(100 * times, 1000),
  });
  const all: Redis[] = [commands];
  const reconnects = new Set<() => void>();
  let lost = false;
  let closing = false;
  commands.on("error", (err: Error) => {
    if (!lost && !closing) opts.logger.warn({ err: err.message }, "redis error");
  });
  commands.on("close", () => {
    if (!lost && !closing) opts.logger.warn("redis connection lost; submits answer 503 until it is back");
    lost = true;
  });
  commands.on("ready", () => {
    if (!lost) return;
    lost = false;
    opts.logger.info("redis connection back");
    for (const fn of reconnects) fn();
  });
  // As before: a process started while Redis is away waits for it.
  await new Promise((resolve) => commands.once("ready", resolve));

  const patient = () => {
    const conn = commands.duplicate(PATIENT);
    // Errors are reported once by `commands`; without a listener ioredis prints each retry.
    conn.on("error", () => {});
    all.push(conn);
    return conn;
  };
  return {
    commands,
    subscriber: patient(),
    onReconnect(fn) {
      reconnects.add(fn);
      return () => reconnects.delete(fn);
    },
    forWorker: patient,
    close() {
      closing = true;
      for (const conn of all) conn.disconnect();
    },
  };
}
