/**
 * The hand-off's leases, written by one timer for every run (src/jobs/handoff-leases.ts): a run
 * that ends soon writes none; those that last are written together, renewed, and deleted once
 * ended; a failed write is tried again; a job run again keeps the lease that now stands for it.
 * (That a live lease keeps another process's reconciler off, and that it expires after a crash:
 * test/e2e/local-handoff-crash.int.test.ts.)
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { HandoffLeases, LEASE_AFTER_MS, LEASE_TICK_MS } from "../../src/jobs/handoff-leases.js";

interface Write {
  hold: string[];
  drop: string[];
  ms: number;
}

function leasesWith(fail: () => boolean = () => false) {
  const writes: Write[] = [];
  const errors: unknown[] = [];
  const leases = new HandoffLeases({
    queue: {
      writeLeases: async (hold, drop, ms) => {
        writes.push({ hold: [...hold], drop: [...drop], ms });
        if (fail()) throw new Error("redis away");
      },
    },
    leaseMs: 30_000,
    onError: (err) => errors.push(err),
  });
  return { leases, writes, errors };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it("a run that ends before it has lasted LEASE_AFTER_MS writes nothing, and the timer stops", async () => {
  const { leases, writes } = leasesWith();
  const end = leases.start("job_a");
  await vi.advanceTimersByTimeAsync(LEASE_AFTER_MS - LEASE_TICK_MS);
  end();
  await vi.advanceTimersByTimeAsync(LEASE_TICK_MS * 4);
  expect(writes).toEqual([]);
  expect(vi.getTimerCount()).toBe(0);
});

it("runs that last are written in one round trip within a tick of coming due, renewed, and deleted once ended", async () => {
  const { leases, writes } = leasesWith();
  const endA = leases.start("job_a");
  const endB = leases.start("job_b");
  await vi.advanceTimersByTimeAsync(LEASE_AFTER_MS + LEASE_TICK_MS);
  expect(writes).toEqual([{ hold: ["job_a", "job_b"], drop: [], ms: 30_000 }]);
  // Renewed at half the lease's duration (15 s), not before.
  await vi.advanceTimersByTimeAsync(14_000);
  expect(writes).toHaveLength(1);
  await vi.advanceTimersByTimeAsync(1_000 + LEASE_TICK_MS);
  expect(writes.at(-1)).toEqual({ hold: ["job_a", "job_b"], drop: [], ms: 30_000 });
  endA();
  await vi.advanceTimersByTimeAsync(LEASE_TICK_MS);
  expect(writes.at(-1)).toEqual({ hold: [], drop: ["job_a"], ms: 30_000 });
  endB();
  await vi.advanceTimersByTimeAsync(LEASE_TICK_MS * 4);
  expect(writes.at(-1)).toEqual({ hold: [], drop: ["job_b"], ms: 30_000 });
  expect(writes).toHaveLength(4);
  expect(vi.getTimerCount()).toBe(0);
});

it("a write that failed is tried again at the next tick", async () => {
  let failing = true;
  const { leases, writes, errors } = leasesWith(() => failing);
  const end = leases.start("job_a");
  await vi.advanceTimersByTimeAsync(LEASE_AFTER_MS);
  expect(writes).toHaveLength(1);
  expect(errors).toHaveLength(1);
  failing = false;
  await vi.advanceTimersByTimeAsync(LEASE_TICK_MS);
  expect(writes).toEqual([
    { hold: ["job_a"], drop: [], ms: 30_000 },
    { hold: ["job_a"], drop: [], ms: 30_000 },
  ]);
  end();
  await vi.advanceTimersByTimeAsync(LEASE_TICK_MS);
  expect(writes.at(-1)).toEqual({ hold: [], drop: ["job_a"], ms: 30_000 });
});

it("a job run again before its old lease was deleted keeps it: no deletion of the lease that now stands for it", async () => {
  const { leases, writes } = leasesWith();
  const first = leases.start("job_a");
  await vi.advanceTimersByTimeAsync(LEASE_AFTER_MS + LEASE_TICK_MS);
  first();
  const again = leases.start("job_a");
  // The first run's end, called late, must not end the second's lease.
  first();
  await vi.advanceTimersByTimeAsync(LEASE_AFTER_MS + LEASE_TICK_MS);
  expect(writes.flatMap((w) => w.drop)).toEqual([]);
  expect(writes.at(-1)).toEqual({ hold: ["job_a"], drop: [], ms: 30_000 });
  again();
  await vi.advanceTimersByTimeAsync(LEASE_TICK_MS);
  expect(writes.at(-1)).toEqual({ hold: [], drop: ["job_a"], ms: 30_000 });
});
