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
  /**
   * The batch being taken from Redis, per key. One at a time: concurrent hits with nothing held
   * wait for it instead of each taking a batch of its own (a burst of N would otherwise count N
   * batches in Redis, and a tenant far below its limit be refused).
   */
  private readonly taking = new Map<string, Promise<number | null>>();
  /**
   * The window in which a key's counter was found past a limit, and that limit: refused until it
   * ends, unless the limit is raised meanwhile.
   */
  private readonly full = new Map<string, { window: number; limit: number }>();

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    this.redis = scripted(redis);
  }

  async hit(key: string, limit: number, windowS: number): Promise<number | null> {
    for (;;) {
      const window = Math.floor(Date.now() / 1000 / windowS);
      const held = this.held.get(key);
      if (held && held.window === window && held.left > 0) {
        held.left--;
        return null;
      }
      // A counter only grows within its window: past the limit once, past it for the rest.
      const full = this.full.get(key);
      if (full && full.window === window && limit <= full.limit) return untilNext(window, windowS);
      const pending = this.taking.get(key);
      if (pending) {
        // Then this hit looks again at what the taker left. A taker's failure (Redis away) fails
        // the hits that waited for it at once, as it would have failed each of them: retried one
        // after another, the last of a burst would wait out every timeout before it.
        await pending;
        continue;
      }
      const taking = this.take(key, limit, windowS, window);
      this.taking.set(key, taking);
      try {
        const refused = await taking;
        if (refused !== null) return refused;
      } finally {
        this.taking.delete(key);
      }
    }
  }

  /** Counts a batch in Redis and holds what fell within the limit; the wait when none did. */
  private async take(key: string, limit: number, windowS: number, window: number): Promise<number | null> {
    const batch = Math.max(1, Math.floor(limit / BATCH_SHARE));
    const n = await this.redis.toolshedHit(`${this.prefix}:rate:${key}:${window}`, windowS * 2, batch);
    // Of this batch, the hits that fall within the limit (the counter was n - batch before it).
    const granted = Math.min(batch, limit - (n - batch));
    if (granted <= 0) {
      this.full.set(key, { window, limit });
      return untilNext(window, windowS);
    }
    const now = this.held.get(key);
    if (now && now.window === window) now.left += granted;
    else this.held.set(key, { window, left: granted });
    return null;
  }
}

/** Whole seconds (at least 1) until `window` ends. */
function untilNext(window: number, windowS: number): number {
  return Math.max(1, (window + 1) * windowS - Math.floor(Date.now() / 1000));
}
