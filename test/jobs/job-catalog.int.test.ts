/**
 * The worker checks every job it takes against the job catalog: a job of an unknown name or
 * with a payload that does not match fails at once (no retry) with a reason that says what is
 * wrong, and the worker goes on with the next job.
 */
import { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadJobPayloadError, parseJobPayload } from "../../src/jobs/catalog.js";
import type { BullJobQueue } from "../../src/jobs/queue.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";
import { pollUntil } from "../support/wait-for-job.js";

describe("parseJobPayload", () => {
  it("returns a catalogued payload and names what is wrong otherwise", () => {
    expect(parseJobPayload("run-call", { jobId: "job_1" })).toEqual({ jobId: "job_1" });
    expect(() => parseJobPayload("run-call", { jobId: "nope" })).toThrow(
      new BadJobPayloadError('bad payload for job "run-call": jobId: Invalid string: must start with "job_"'),
    );
    expect(() => parseJobPayload("mystery", {})).toThrow(
      new BadJobPayloadError('unknown job name "mystery" (this worker runs: run-call)'),
    );
  });
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: { SANDBOX_RETRY_ATTEMPTS: "3" },
    start: { sandboxes: new NullSandboxProvider() },
  });
});
afterAll(async () => {
  await h?.stop();
});

it("a bad payload fails its BullMQ job at once, clearly; good jobs still run", async () => {
  const { queue } = h.service.deps.queue as BullJobQueue;
  const retry = { attempts: 3, backoff: { type: "fixed", delay: 10 } };
  await queue.add("run-call", { jobId: "not-a-job-id" } as never, { jobId: "bad-payload", ...retry });
  await queue.add("mystery" as never, { jobId: "job_x" }, { jobId: "bad-name", ...retry });

  for (const [id, reason] of [
    ["bad-payload", 'bad payload for job "run-call": jobId: Invalid string: must start with "job_"'],
    ["bad-name", 'unknown job name "mystery" (this worker runs: run-call)'],
  ] as const) {
    const failed = await pollUntil(
      async () => {
        const job = await Job.fromId(queue, id);
        return { state: await job?.getState(), reason: job?.failedReason, attempts: job?.attemptsMade };
      },
      (j) => j.state === "failed",
      { timeoutMs: 30_000, what: `${id} to fail` },
    );
    expect(failed).toEqual({ state: "failed", reason, attempts: 1 });
  }

  // The worker is still taking jobs: a real call is run (and fails only for want of a sandbox).
  const t = await seedBashTenant(h.call);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const res = await h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "echo 1" } },
  });
  expect(res.body.job.status, JSON.stringify(res.body)).toBe("failed");
  expect(res.body.job.result.content[0].text).toContain("sandbox is unavailable");
});
