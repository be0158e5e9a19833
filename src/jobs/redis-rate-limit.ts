/**
 * Fixed-window rate limiting on Redis (`INCRBY` + `EXPIRE`, one script), shared by every API
 * process. A process counts its hits in batches: it takes up to 1/BATCH_SHARE of the window's
 * limit at once (one round trip) and spends that locally, so that most calls make no Redis write
 * for their rate limit. Every hit is counted in Redis before it is allowed, so the processes
 * together never allow more than the limit; what a process took and did not spend by the window's
 * end (at most a batch less one) is lost to that window, so a tenant may be refused up to that
 * many hits per process early. A limit below BATCH_SHARE is counted hit by hit, exactly.
 */
import type { Redis } from "ioredis";
import type { RateLimiter } from "../service/ports.js";
import { type ScriptedRedis, scripted } from "./redis-scripts.js";

/** A batch is at most this share of the limit (1%). */
const BATCH_SHARE = 100;

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: ScriptedRedis;
  /** Hits this process counted in Redis and has not spent yet, per key, for one window. */
  private readonly held = new Map<string, { window: number; left: number }>();

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    this.redis = scripted(redis);
  }

  async hit(key: string, limit: number, windowS: number): Promise<number | null> {
    const window = Math.floor(Date.now() / 1000 / windowS);
    const held = this.held.get(key);
    if (held && held.window === window && held.left > 0) {
      held.left--;
      return null;
    }
    const batch = Math.max(1, Math.floor(limit / BATCH_SHARE));
    const n = await this.redis.toolshedHit(`${this.prefix}:rate:${key}:${window}`, windowS * 2, batch);
    // Of this batch, the hits that fall within the limit (the counter was n - batch before it).
    const granted = Math.min(batch, limit - (n - batch));
    if (granted <= 0) return Math.max(1, (window + 1) * windowS - Math.floor(Date.now() / 1000));
    // This hit takes one; the rest add to what concurrent hits of this window may have taken.
    const now = this.held.get(key);
    if (now && now.window === window) now.left += granted - 1;
    else this.held.set(key, { window, left: granted - 1 });
    return null;
  }
}
