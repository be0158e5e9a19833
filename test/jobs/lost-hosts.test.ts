/**
 * The heartbeat's sweep of lost hosts after Redis refused this host's own beat (Redis full, frozen
 * or away): every host's key lapsed at once, so the first host whose beat goes through again must
 * not release the others (their sessions, running calls) before they had a TTL to beat again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { tablesOf } from "../../src/db/db.js";
import type { HostRegistry } from "../../src/jobs/host-registry.js";
import { startHeartbeat } from "../../src/jobs/lost-hosts.js";
import type { BullJobQueue } from "../../src/jobs/queue.js";
import { createLogger } from "../../src/log.js";
import type { ServiceDeps } from "../../src/service/ports.js";
import { sessionRow } from "../support/rows.js";
import { openTestDb } from "../support/test-db.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it("after its own beat failed, a host waits a TTL of good beats before it calls another lost", async () => {
  const ttlMs = 3000; // a tick every 1 s
  let full = true;
  const sweeps: number[] = [];
  let lastFailure = 0;
  const hosts = {
    ttlMs,
    beat: async () => {
      if (full) {
        lastFailure = Date.now();
        throw new Error("OOM command not allowed when used memory > 'maxmemory'.");
      }
    },
    lost: async () => ["h-other"],
    claimSweep: async () => {
      sweeps.push(Date.now() - lastFailure);
      return false; // another worker's: nothing to release here
    },
  } as unknown as HostRegistry;
  const deps = { logger: createLogger("silent") } as unknown as ServiceDeps;
  const stop = startHeartbeat(deps, hosts, "h-me", {} as BullJobQueue);
  await vi.advanceTimersByTimeAsync(5_000); // Redis full for 5 s
  full = false;
  await vi.advanceTimersByTimeAsync(10_000);
  stop();
  expect(sweeps.length).toBeGreaterThan(0);
  // The first look for lost hosts comes a full TTL after the last failed beat, not at the first good one.
  expect(Math.min(...sweeps)).toBeGreaterThanOrEqual(ttlMs);
});

it("when Redis lost the list of hosts, the pinned hosts are listed again and none is lost before a TTL", async () => {
  const ttlMs = 3000;
  const dir = mkdtempSync(join(tmpdir(), "tslh-"));
  const { db, close } = openTestDb(join(dir, "t.db"));
  const { tenants, sessions } = tablesOf(db);
  await db.insert(tenants).values({ id: "ten_a", name: "a", createdAt: new Date().toISOString() });
  await db.insert(sessions).values(sessionRow({ id: "ses_a", tenantId: "ten_a", hostId: "h-dead" }));
  const listed: string[][] = [];
  const sweeps: number[] = [];
  const restartedAt = Date.now();
  let beats = 0;
  const hosts = {
    ttlMs,
    // The first beat finds the list without this host (Redis came back empty).
    beat: async () => beats++ === 0,
    list: async (ids: string[]) => void listed.push(ids),
    lost: async () => (listed.length > 0 ? ["h-dead"] : []),
    claimSweep: async () => {
      sweeps.push(Date.now() - restartedAt);
      return false;
    },
  } as unknown as HostRegistry;
  const deps = { db, logger: createLogger("silent") } as unknown as ServiceDeps;
  const stop = startHeartbeat(deps, hosts, "h-me", {} as BullJobQueue);
  await vi.advanceTimersByTimeAsync(6_000);
  stop();
  close();
  rmSync(dir, { recursive: true, force: true });
  expect(listed).toEqual([["h-dead"]]);
  // Found lost (a host that died while Redis was away is still released), a TTL after the list came back.
  expect(sweeps.length).toBeGreaterThan(0);
  expect(Math.min(...sweeps)).toBeGreaterThanOrEqual(ttlMs);
});
