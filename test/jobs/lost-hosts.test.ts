/**
 * The heartbeat's sweep of lost hosts after Redis refused this host's own beat (Redis full, frozen
 * or away): every host's key lapsed at once, so the first host whose beat goes through again must
 * not release the others (their sessions, running calls) before they had a TTL to beat again.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { HostRegistry } from "../../src/jobs/host-registry.js";
import { startHeartbeat } from "../../src/jobs/lost-hosts.js";
import type { BullJobQueue } from "../../src/jobs/queue.js";
import { createLogger } from "../../src/log.js";
import type { ServiceDeps } from "../../src/service/ports.js";

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
