/**
 * The per-process cache of a tenant's configuration reads (src/service/tenant-read-cache.ts):
 * a hit does not load, a write in this process (invalidate) and the TTL make it load again, a
 * load in flight is shared and one that fails is not kept. The clock is Date's, faked here.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { Db } from "../../src/db/db.js";
import { CONFIG_TTL_MS, tenantReadCache } from "../../src/service/tenant-read-cache.js";

const dbA = {} as Db;
const dbB = {} as Db;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-01-01T00:00:00Z"));
});
afterEach(() => vi.useRealTimers());

/** A loader that answers `v<n>` on its n-th call. */
function counter() {
  let n = 0;
  const load = vi.fn(async () => `v${++n}`);
  return load;
}

it.each([
  ["a hit within the TTL", CONFIG_TTL_MS - 1, false, "v1", 1],
  ["expiry at the TTL", CONFIG_TTL_MS, false, "v2", 2],
  ["an invalidation by a write in this process", 0, true, "v2", 2],
] as const)("%s", async (_label, later, invalidate, expected, loads) => {
  const cache = tenantReadCache<string>();
  const load = counter();
  expect(await cache.get(dbA, "ten_a", load)).toBe("v1");
  vi.setSystemTime(Date.now() + later);
  if (invalidate) cache.invalidate(dbA, "ten_a");
  expect(await cache.get(dbA, "ten_a", load)).toBe(expected);
  expect(load).toHaveBeenCalledTimes(loads);
});

it("keeps tenants and databases apart", async () => {
  const cache = tenantReadCache<string>();
  expect(await cache.get(dbA, "ten_a", async () => "a")).toBe("a");
  expect(await cache.get(dbA, "ten_b", async () => "b")).toBe("b");
  expect(await cache.get(dbB, "ten_a", async () => "other db")).toBe("other db");
  cache.invalidate(dbA, "ten_b");
  expect(await cache.get(dbA, "ten_a", async () => "reloaded")).toBe("a");
  expect(await cache.get(dbA, "ten_b", async () => "b again")).toBe("b again");
});

it("concurrent misses share one load; a load that started before an invalidation is not kept", async () => {
  const cache = tenantReadCache<string>();
  let release!: (v: string) => void;
  const slow = vi.fn(() => new Promise<string>((r) => (release = r)));
  const both = Promise.all([cache.get(dbA, "ten_a", slow), cache.get(dbA, "ten_a", slow)]);
  expect(slow).toHaveBeenCalledTimes(1);
  // A write lands while the read is in flight: the read's answer may be the old value, but the
  // next get must not be served from it.
  cache.invalidate(dbA, "ten_a");
  release("old");
  expect(await both).toEqual(["old", "old"]);
  expect(await cache.get(dbA, "ten_a", async () => "new")).toBe("new");
});

it("a failed load is not served afterwards", async () => {
  const cache = tenantReadCache<string>();
  await expect(
    cache.get(dbA, "ten_a", async () => Promise.reject(new Error("database down"))),
  ).rejects.toThrow("database down");
  expect(await cache.get(dbA, "ten_a", async () => "up")).toBe("up");
});

it("holds a bounded number of tenants per database (the oldest go first)", async () => {
  const cache = tenantReadCache<string>();
  for (let i = 0; i <= 10_000; i++) await cache.get(dbA, `ten_${i}`, async () => `v${i}`);
  expect(await cache.get(dbA, "ten_10000", async () => "reloaded")).toBe("v10000");
  expect(await cache.get(dbA, "ten_0", async () => "reloaded")).toBe("reloaded");
});
