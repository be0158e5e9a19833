/**
 * A worker process is killed (SIGKILL) in the middle of a queue: its running job's lock
 * expires, BullMQ's stalled-job check hands it to the next worker, and every job finishes.
 */
import { expect, it } from "vitest";
import { apiWithChildWorkers } from "../support/child-workers.js";
import { seedBashTenant } from "../support/harness.js";
import { countStatus, waitForJobs } from "../support/wait-for-job.js";

const fx = apiWithChildWorkers();

it("a killed worker's jobs are recovered by another worker and none is lost", async () => {
  const t = await seedBashTenant(fx.h.call);
  const sid = (await fx.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const child = await fx.spawn("worker");
  const n = 6;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await fx.h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command: `echo ${i} >> /workspace/order.log; sleep 0.5` } },
    });
    ids.push(r.body.job.id);
  }
  await waitForJobs(
    fx.h.call,
    t.agentKey,
    ids,
    (jobs) => countStatus(jobs, "succeeded") >= 2 && countStatus(jobs, "running") > 0,
    { intervalMs: 50 },
  );
  await child.stop("SIGKILL");
  const mid = await waitForJobs(fx.h.call, t.agentKey, ids, () => true);
  expect(mid.map((j) => j.status)).toContain("running");

  await fx.h.start("worker");
  const final = await waitForJobs(fx.h.call, t.agentKey, ids);
  expect(final.map((j) => j.status)).toEqual(ids.map(() => "succeeded"));
  const log = await fx.h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "cat /workspace/order.log" } },
  });
  // The job the dead worker was running was re-attached, not run again: each line once, in order.
  const lines = (log.body.job.result.content[0].text as string).trim().split("\n");
  expect(lines).toEqual([...Array(n).keys()].map(String));
  await fx.h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 180_000);
