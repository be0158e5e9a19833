/** Fixed-window rate limiting on Redis (`INCR` + `EXPIRE`), shared by every API process. */
import type { Redis } from "ioredis";
import type { RateLimiter } from "../service/ports.js";

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async hit(key: string, limit: number, windowS: number): Promise<number | null> {
    const window = Math.floor(Date.now() / 1000 / windowS);
    const k = `${this.prefix}:rate:${key}:${window}`;
    const [[, n]] = (await this.redis
      .multi()
      .incr(k)
      .expire(k, windowS * 2)
      .exec()) as [[unknown, number]];
    if (n <= limit) return null;
    return Math.max(1, (window + 1) * windowS - Math.floor(Date.now() / 1000));
  }
}
