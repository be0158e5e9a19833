/** The transfer staging on the real Redis with a unique prefix: chunks, replacement, expiry, removal. */
// suite: parallel — the shared Redis, under a prefix of its own
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, expect, it } from "vitest";
import { RedisTransferStore } from "../../src/jobs/redis-transfers.js";
import { TransferMissingError } from "../../src/service/files/transfer-store.js";

const prefix = `tst-xf-${randomBytes(4).toString("hex")}`;
const redis = new Redis("redis://127.0.0.1:6379");
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const store = (ttlMs?: number) =>
  new RedisTransferStore(redis, { prefix, maxBytes: 64 * 1024 * 1024, ...(ttlMs ? { ttlMs } : {}) });

it("keeps every byte of a file of many chunks, and an empty one", async () => {
  const s = store();
  // Over 8 chunks of 1 MiB: more than one read round trip, and a last partial chunk.
  const data = randomBytes(9 * 1024 * 1024 + 123);
  await s.write("job_big", "in", data);
  expect((await s.read("job_big", "in")).equals(data)).toBe(true);
  expect(await redis.llen(`${prefix}:transfer:{job_big}:in`)).toBe(10);
  await s.write("job_empty", "out", Buffer.alloc(0));
  expect((await s.read("job_empty", "out")).length).toBe(0);
});

it("a second write replaces the first whole (a retried worker), sides stay apart", async () => {
  const s = store();
  await s.write("job_again", "out", randomBytes(3 * 1024 * 1024));
  const second = Buffer.from("short");
  await s.write("job_again", "out", second);
  expect((await s.read("job_again", "out")).equals(second)).toBe(true);
  await expect(s.read("job_again", "in")).rejects.toBeInstanceOf(TransferMissingError);
});

it("staged bytes carry a TTL and remove drops both sides", async () => {
  const s = store(60_000);
  await s.write("job_rm", "in", Buffer.from("a"));
  await s.write("job_rm", "out", Buffer.from("b"));
  const ttl = await redis.pttl(`${prefix}:transfer:{job_rm}:in`);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(60_000);
  await s.remove("job_rm");
  await expect(s.read("job_rm", "in")).rejects.toBeInstanceOf(TransferMissingError);
  await expect(s.read("job_rm", "out")).rejects.toBeInstanceOf(TransferMissingError);
});

it("refuses a key that is not a job id", async () => {
  await expect(store().write("../x", "in", Buffer.from("a"))).rejects.toThrow(/bad job id/);
});
