/**
 * A worker stops in the middle of a queue and another takes over: no job is lost, and the
 * session's calls still ran one at a time in submission order.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningService } from "../../src/cli/compose.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { countStatus, waitForJobs } from "../support/wait-for-job.js";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ mode: "api" });
});
afterAll(async () => {
  await h?.stop();
});

it("a worker restart mid-queue loses no job and keeps per-session order", async () => {
  const t = await seedBashTenant(h.call);
  const s = await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} });
  const sid = s.body.id;
  const first: RunningService = await h.start("worker");
  const n = 8;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command: `echo ${i} >> /workspace/order.log; sleep 0.4` } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    ids.push(r.body.job.id);
  }
  await waitForJobs(h.call, t.agentKey, ids, (jobs) => countStatus(jobs, "succeeded") >= 2, {
    timeoutMs: 60_000,
  });
  await first.stop();
  const mid = await waitForJobs(h.call, t.agentKey, ids, () => true);
  expect(countStatus(mid, "succeeded")).toBeLessThan(n);

  await h.start("worker");
  const final = await waitForJobs(h.call, t.agentKey, ids);
  expect(final.map((j) => j.status)).toEqual(ids.map(() => "succeeded"));
  const log = await h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "cat /workspace/order.log" } },
  });
  const out = log.body.job.result.content[0].text as string;
  expect(out).toBe(`${[...Array(n).keys()].join("\n")}\n`);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
});
