/**
 * Fixed-window rate limiting on Redis (`INCRBY` + `EXPIRE`, one script), shared by every API
 * process. A process counts its hits in batches: it takes up to 1/BATCH_SHARE of the window's
 * limit at once (one round trip) and spends that locally, so that most calls make no Redis write
 * for their rate limit. Every hit is counted in Redis before it is allowed, so the processes
 * together never allow more than the limit; what a process took and did not spend by the window's
 * end (at most a batch less one) is lost to that window, so a tenant may be refused up to that
 * many hits per process early. A limit below BATCH_SHARE is counted hit by hit, exactly.
 * Windows are counted on Redis's clock (this host's plus its measured offset to Redis `TIME`): a
 * host whose clock is off would count a tenant's hits into other windows than the other hosts.
 */
import type { Redis } from "ioredis";
import type { RateLimiter } from "../service/ports.js";
import { type ScriptedRedis, scripted } from "./redis-scripts.js";

/** A batch is at most this share of the limit (1%). */
const BATCH_SHARE = 100;
/** How often a process measures its offset to Redis's clock again (ms). */
const OFFSET_REFRESH_MS = 60_000;

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

  private readonly raw: Redis;
  /** Redis's clock minus this host's (ms), as last measured; 0 until then. */
  private offsetMs = 0;
  private offsetReadAt: number | undefined;
  private offsetRead: Promise<void> | undefined;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    /** This host's clock (a test gives a skewed one). */
    private readonly hostClock: () => number = Date.now,
  ) {
    this.raw = redis;
    this.redis = scripted(redis);
  }

  async hit(key: string, limit: number, windowS: number): Promise<number | null> {
    for (;;) {
      const nowMs = await this.now();
      const window = Math.floor(nowMs / 1000 / windowS);
      const held = this.held.get(key);
      if (held && held.window === window && held.left > 0) {
        held.left--;
        return null;
      }
      // A counter only grows within its window: past the limit once, past it for the rest.
      const full = this.full.get(key);
      if (full && full.window === window && limit <= full.limit) return untilNext(window, windowS, nowMs);
      const pending = this.taking.get(key);
      if (pending) {
        // Then this hit looks again at what the taker left. A taker's failure (Redis away) fails
        // the hits that waited for it at once, as it would have failed each of them: retried one
        // after another, the last of a burst would wait out every timeout before it.
        await pending;
        continue;
      }
      const taking = this.take(key, limit, windowS, window, nowMs);
      this.taking.set(key, taking);
      try {
        const refused = await taking;
        if (refused !== null) return refused;
      } finally {
        this.taking.delete(key);
      }
    }
  }

  /**
   * Redis's clock: this host's plus the offset measured at most OFFSET_REFRESH_MS ago. The first
   * hit of a process waits for the first measure (one round trip); later ones refresh it in the
   * background. Redis away: the last offset stays (0 at first), and the hit's own call says so.
   */
  private async now(): Promise<number> {
    const stale =
      this.offsetReadAt === undefined || this.hostClock() - this.offsetReadAt >= OFFSET_REFRESH_MS;
    if (stale) {
      this.offsetRead ??= this.readOffset().finally(() => {
        this.offsetRead = undefined;
      });
      if (this.offsetReadAt === undefined) await this.offsetRead;
    }
    return this.hostClock() + this.offsetMs;
  }

  private async readOffset(): Promise<void> {
    try {
      const before = this.hostClock();
      const [s, us] = await this.raw.time();
      const after = this.hostClock();
      this.offsetMs = Number(s) * 1000 + Math.floor(Number(us) / 1000) - Math.round((before + after) / 2);
    } catch {
      // Kept as it was: the hit that follows reaches Redis itself, and fails if it is away.
    }
    this.offsetReadAt = this.hostClock();
  }

  /** Counts a batch in Redis and holds what fell within the limit; the wait when none did. */
  private async take(
    key: string,
    limit: number,
    windowS: number,
    window: number,
    nowMs: number,
  ): Promise<number | null> {
    const batch = Math.max(1, Math.floor(limit / BATCH_SHARE));
    const n = await this.redis.toolshedHit(`${this.prefix}:rate:${key}:${window}`, windowS * 2, batch);
    // Of this batch, the hits that fall within the limit (the counter was n - batch before it).
    const granted = Math.min(batch, limit - (n - batch));
    if (granted <= 0) {
      this.full.set(key, { window, limit });
      return untilNext(window, windowS, nowMs);
    }
    const now = this.held.get(key);
    if (now && now.window === window) now.left += granted;
    else this.held.set(key, { window, left: granted });
    return null;
  }
}

/** Whole seconds (at least 1) until `window` ends. */
function untilNext(window: number, windowS: number, nowMs: number): number {
  return Math.max(1, (window + 1) * windowS - Math.floor(nowMs / 1000));
}
