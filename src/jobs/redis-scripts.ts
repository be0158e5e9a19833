/**
 * Lua scripts on the command connection, for the writes every call makes: one command and one
 * reply where a MULTI sent four to nine (ioredis builds a command object, a promise and a reply
 * parse for each, which made these the largest Redis cost of a warm call). A script is atomic as
 * the MULTI was. ioredis sends EVALSHA and falls back to EVAL after a Redis restart (NOSCRIPT).
 */
import type { Redis } from "ioredis";

const SCRIPTS = {
  /**
   * KEYS[1] the job's stream; ARGV: maxLen, ttlS, job channel, job notice, tenant channel ("" for
   * none), tenant notice, then (type, data) per event: appended in order, capped, the stream's
   * expiry renewed, then the notices published.
   */
  toolshedJobEvents: `
    for i = 7, #ARGV, 2 do
      redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'type', ARGV[i], 'data', ARGV[i + 1])
    end
    redis.call('EXPIRE', KEYS[1], ARGV[2])
    redis.call('PUBLISH', ARGV[3], ARGV[4])
    if ARGV[5] ~= '' then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
    return 1`,
  /**
   * KEYS[1] a fixed window's counter; ARGV[1] its expiry in seconds, ARGV[2] how many hits to count
   * (1 when absent). The count after them.
   */
  toolshedHit: `
    local n = redis.call('INCRBY', KEYS[1], tonumber(ARGV[2] or '1'))
    redis.call('EXPIRE', KEYS[1], ARGV[1])
    return n`,
  /**
   * KEYS the hand-off leases to delete (the first ARGV[1] of them), then those to write, each for
   * ARGV[2] ms (handoff-leases.ts: one command a tick for every run's lease). All under the queue's
   * prefix, one hash tag: one Redis Cluster slot.
   */
  toolshedLeases: `
    local drop = tonumber(ARGV[1])
    for i = 1, #KEYS do
      if i <= drop then redis.call('DEL', KEYS[i]) else redis.call('SET', KEYS[i], '1', 'PX', ARGV[2]) end
    end
    return #KEYS`,
} as const;

/** How many keys a script takes; absent: one. `null`: as many as its call says (its first argument). */
const KEY_COUNTS: Partial<Record<keyof typeof SCRIPTS, null>> = { toolshedLeases: null };

export interface ScriptedRedis {
  toolshedJobEvents(key: string, ...args: string[]): Promise<number>;
  toolshedHit(key: string, ttlS: number, count: number): Promise<number>;
  toolshedLeases(keyCount: number, ...keysThenArgs: string[]): Promise<number>;
}

/** `redis` with the scripts defined on it (once per connection). */
export function scripted(redis: Redis): ScriptedRedis {
  for (const [name, lua] of Object.entries(SCRIPTS)) {
    if (name in redis) continue;
    const keys = KEY_COUNTS[name as keyof typeof SCRIPTS] === null ? {} : { numberOfKeys: 1 };
    redis.defineCommand(name, { ...keys, lua });
  }
  return redis as unknown as ScriptedRedis;
}
