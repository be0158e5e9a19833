/** Fixed-window rate limiting on Redis (`INCR` + `EXPIRE`, one script), shared by every API process. */
import type { Redis } from "ioredis";
import type { RateLimiter } from "../service/ports.js";
import { type ScriptedRedis, scripted } from "./redis-scripts.js";

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: ScriptedRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    this.redis = scripted(redis);
  }

  async hit(key: string, limit: number, windowS: number): Promise<number | null> {
    const window = Math.floor(Date.now() / 1000 / windowS);
    const k = `${this.prefix}:rate:${key}:${window}`;
    const n = await this.redis.toolshedHit(k, windowS * 2);
    if (n <= limit) return null;
    return Math.max(1, (window + 1) * windowS - Math.floor(Date.now() / 1000));
  }
}
