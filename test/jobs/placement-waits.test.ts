/**
 * ENGINE_WAIT_MS is waited on this host's clock: an entry stamped by an enqueuer whose clock is
 * 10 minutes behind (or this host 10 minutes ahead) still waits the whole wait here before a host
 * whose engine does not answer takes it.
 */
import { expect, it } from "vitest";
import { PlacementWaits } from "../../src/jobs/placement-waits.js";

const WAIT = 10_000;

it("an entry stamped 10 minutes earlier by another host's clock still waits the whole wait here", () => {
  let now = 1_000_000_000;
  const waits = new PlacementWaits(WAIT, () => now);
  const entry = { id: "1", timestamp: now - 600_000 };
  expect(waits.over(entry)).toBe(false);
  now += WAIT - 1;
  expect(waits.over(entry)).toBe(false);
  now += 1;
  expect(waits.over(entry)).toBe(true);
});

it("no wait (ENGINE_WAIT_MS=0) is over at once; a finished entry waits afresh; others are forgotten", () => {
  let now = 5_000_000;
  expect(new PlacementWaits(0, () => now).over({ id: "a", timestamp: now })).toBe(true);
  const waits = new PlacementWaits(WAIT, () => now);
  const a = { id: "a", timestamp: now };
  const b = { id: "b", timestamp: now };
  waits.over(a);
  waits.over(b);
  now += WAIT;
  expect(waits.over(a)).toBe(true);
  waits.done(a);
  expect(waits.over(a)).toBe(false);
  // `b` was taken by another host (never done here): forgotten after ten waits, it would wait afresh.
  now += 10 * WAIT + 1;
  expect(waits.over(b)).toBe(false);
});
