/**
 * Another path by which load alone gives a call a second attempt (NOTES-twice31.md): a call run
 * handed off (serve mode, no queue entry) is covered by a lease its process writes once the run
 * has lasted 50 ms; a process whose event loop stalls writes it late, and a reconciler of another
 * process that finds the row `running` with neither entry nor lease, twice 250 ms apart, queues
 * it again; the call's host takes it over. Here the lease is held back (no lease is written in
 * this process) and that other process's reconciler is one pass run by the test, at the moment
 * that matters (the command ended, the first attempt's finish on its way). The take-over
 * re-attaches in the same executor: the command ran once.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { BullJobQueue } from "../../src/jobs/queue.js";
import { startReconciler } from "../../src/jobs/reconciler.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { COUNTED, expectOneRunTakenOver, takeoverWindow } from "../support/takeover-window.js";
import { waitForJob } from "../support/wait-for-job.js";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

it("a handed-off call whose lease is late, queued again by another process's reconciler: taken over, the command ran once", async () => {
  const t = await seedBashTenant(h.call, "lease");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const calls = `/v1/sessions/${sid}/calls`;
  const bash = (command: string) => ({ tool: "Bash", input: { command } });
  // The session's first call pins it here; the next ones are handed off (no queue entry).
  const pin = await h.call("POST", `${calls}?wait=30`, { key: t.agentKey, body: bash("true") });
  expect(pin.body.job.status, JSON.stringify(pin.body)).toBe("succeeded");

  const deps = h.service.deps;
  const queue = deps.queue as BullJobQueue;
  // The seam: this process's lease timer is as late as it gets (no lease is written).
  queue.writeLeases = async () => {};
  const window = takeoverWindow(deps, sid, async () => {
    // Another process's reconciler: the run is not its own (`runsNow` false), and it looks once
    // (the second look is the first again: nothing changes in between, the lease stays unwritten).
    const other = startReconciler(deps, queue, {
      intervalMs: 3_600_000,
      batch: 500,
      settleMs: 0,
      runsNow: () => false,
    });
    const { requeued } = await other.pass();
    await other.stop();
    if (requeued !== 1) throw new Error(`the reconciler queued ${requeued} calls again, not 1`);
  });

  const sub = await h.call("POST", calls, {
    key: t.agentKey,
    body: bash(COUNTED),
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(202);
  const job = await waitForJob(h.call, t.agentKey, sub.body.job.id, { timeoutMs: 60_000 });
  expectOneRunTakenOver(window, join(h.config.DATA_DIR, "sb", "workspaces", sid), job);
}, 120_000);
