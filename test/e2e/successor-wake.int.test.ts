/**
 * A call queued behind a running one of its session starts when that one ends: the finish wakes
 * it. Its order recheck is set to ten minutes here, so only the wake can start it in time: a
 * finish that skipped the look for successors (`laterCalls`) when one had been queued would
 * strand it. The waiting call is submitted through a second API process (no hand-off of its own).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningService } from "../../src/cli/compose.js";
import { type Harness, httpClient, seedBashTenant, startHarness } from "../support/harness.js";
import { waitForJob } from "../support/wait-for-job.js";

let h: Harness;
let api: RunningService;
beforeAll(async () => {
  h = await startHarness({ env: { ORDER_RECHECK_MS: "600000" } });
  api = await h.start("api");
});
afterAll(async () => {
  // Stops the second process too.
  await h?.stop();
});

it("wakes a call queued behind a running one, whichever process queued it", async () => {
  const t = await seedBashTenant(h.call);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const submit = (call: typeof h.call, command: string) =>
    call("POST", `/v1/sessions/${sid}/calls`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command } },
    });
  // Warm: the session is pinned to the serving process, and its container is up.
  const warm = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "true" } },
  });
  expect(warm.body.job.status, JSON.stringify(warm.body)).toBe("succeeded");
  for (const via of [h.call, httpClient(api.url!)]) {
    const first = (await submit(h.call, "sleep 1.5")).body.job;
    expect(first.status).toBe("running");
    const behind = await submit(via, "echo behind");
    expect(behind.status, JSON.stringify(behind.body)).toBe(202);
    const started = Date.now();
    expect((await waitForJob(h.call, t.agentKey, first.id, { timeoutMs: 30_000 })).status).toBe("succeeded");
    // Well within the ten-minute recheck: only the first call's finish could have started it.
    const done = await waitForJob(h.call, t.agentKey, behind.body.job.id, { timeoutMs: 30_000 });
    expect(done.status, JSON.stringify(done)).toBe("succeeded");
    expect(Date.now() - started).toBeLessThan(30_000);
  }
});
