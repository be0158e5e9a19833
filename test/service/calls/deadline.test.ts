/** `withDeadline`: a dependency that does not answer times out; a stalled event loop does not. */
import { expect, it } from "vitest";
import { withDeadline } from "../../../src/service/calls/deadline.js";

const timedOut = () => new Error("timed out");

it("rejects with the given error when the work never settles", async () => {
  await expect(withDeadline(new Promise(() => {}), 50, timedOut)).rejects.toThrow("timed out");
});

it("passes the work's own value or error through", async () => {
  await expect(withDeadline(Promise.resolve(7), 50, timedOut)).resolves.toBe(7);
  await expect(withDeadline(Promise.reject(new Error("no")), 50, timedOut)).rejects.toThrow("no");
});

it("a loop blocked past the deadline does not trip it when the answer was already there", async () => {
  // The answer lands during a synchronous stall three times as long as the deadline, and is
  // read after the timers of the next loop turn (as socket data is).
  const work = new Promise<string>((resolve) =>
    setTimeout(() => setImmediate(() => resolve("answered")), 20),
  );
  const bounded = withDeadline(work, 100, timedOut);
  const until = performance.now() + 300;
  while (performance.now() < until) {
    // blocked, as SQLite's busy wait blocks
  }
  await expect(bounded).resolves.toBe("answered");
});
