/** REDIS_URL parsing: plain URLs as ioredis reads them, Sentinel URLs as a sentinel list and master name. */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { redisOptionsFromUrl } from "../../src/jobs/redis-url.js";

describe("redisOptionsFromUrl", () => {
  it("reads a plain URL: host, port, password, db", () => {
    expect(redisOptionsFromUrl("redis://:s%40cret@10.0.0.5:6380/2")).toEqual({
      host: "10.0.0.5",
      port: 6380,
      password: "s@cret",
      db: 2,
    });
    expect(redisOptionsFromUrl("redis://127.0.0.1:6379")).toEqual({ host: "127.0.0.1", port: 6379 });
  });

  it("reads a Sentinel URL: every sentinel, the master group, the password and db", () => {
    expect(redisOptionsFromUrl("redis+sentinel://:pw@s1:26379,s2:26380,s3/mymaster/1")).toEqual({
      sentinels: [
        { host: "s1", port: 26379 },
        { host: "s2", port: 26380 },
        { host: "s3", port: 26379 },
      ],
      name: "mymaster",
      password: "pw",
      db: 1,
    });
    expect(redisOptionsFromUrl("sentinel://a:1/m")).toEqual({
      sentinels: [{ host: "a", port: 1 }],
      name: "m",
    });
  });

  it("refuses a bad sentinel address and an unknown scheme", () => {
    expect(() => redisOptionsFromUrl("redis+sentinel://s1:notaport/m")).toThrow(/invalid sentinel address/);
    expect(() => redisOptionsFromUrl("http://x:1")).toThrow(/unsupported scheme/);
  });

  it("the config accepts Sentinel URLs and names the field of a wrong scheme", () => {
    expect(loadConfig({ REDIS_URL: "redis+sentinel://s1:26379/m" }).REDIS_URL).toContain("sentinel");
    expect(() => loadConfig({ REDIS_URL: "http://x" })).toThrow(/REDIS_URL: use redis:\/\//);
  });
});
