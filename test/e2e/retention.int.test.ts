/**
 * Retention through the real service (HTTP, Redis, worker, Docker; SQLite, and Postgres in the
 * integration-pg project): a pass run as if N days had gone by. A finished job past the
 * retention is gone and its id a 404 that says how long jobs are kept (another tenant's job: the
 * same words); a running job and a pending approval stay however old; an idempotency key is
 * honoured while its job is kept and frees once it is gone; the audit entry of a pruned job
 * stays; the pruner counts what it deleted in /metrics.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { retentionSettings, startPruner } from "../../src/service/retention/pruner.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { pollUntil, readJob } from "../support/wait-for-job.js";

let h: Harness;
let t: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;
const DAY = 86_400_000;
const inDays = (d: number) => new Date(Date.now() + d * DAY);

beforeAll(async () => {
  h = await startHarness();
  t = await seedTenant(h.call, "keeps");
  const rules = { allow: ["Bash(sleep:*)"], deny: ["Bash(rm:*)"], ask: ["Bash(touch:*)"] };
  expect(
    (await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules })).status,
  ).toBe(200);
  sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  expect(sid).toMatch(/^ses_/);
});

afterAll(async () => {
  if (sid) await h?.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
  await h?.stop();
});

const submit = (body: object) => h.call("POST", `/v1/sessions/${sid}/calls`, { key: t.agentKey, body });
/** A pass of the service's own pruner, on its database, as if `days` had gone by. */
const pruneAt = (days: number) => {
  const pruner = startPruner(h.service.deps, retentionSettings(h.config), { intervalMs: 3_600_000 });
  return pruner.pass(inDays(days)).finally(() => pruner.stop());
};

it("a finished job past the retention is a 404 saying jobs are kept 30 days; a running job and a pending approval stay", async () => {
  const denied = await submit({ tool: "Bash", input: { command: "rm x" } });
  expect(denied.status, JSON.stringify(denied.body)).toBe(200);
  const deniedId = denied.body.job.id as string;
  const asking = (await submit({ tool: "Bash", input: { command: "touch y" } })).body.job.id as string;
  const running = (await submit({ tool: "Bash", input: { command: "sleep 30" } })).body.job.id as string;
  await pollUntil(
    () => readJob(h.call, t.agentKey, running),
    (j) => j.status === "running",
    { timeoutMs: 60_000 },
  );

  // Inside the retention: nothing of it goes.
  await pruneAt(29);
  expect((await h.call("GET", `/v1/jobs/${deniedId}`, { key: t.agentKey })).status).toBe(200);

  const counts = await pruneAt(31);
  expect(counts.jobs).toBeGreaterThanOrEqual(1);
  const gone = await h.call("GET", `/v1/jobs/${deniedId}`, { key: t.agentKey });
  expect(gone.status, JSON.stringify(gone.body)).toBe(404);
  expect(gone.body.error.code).toBe("NOT_FOUND");
  expect(gone.body.error.message).toBe(`job ${deniedId} not found (finished jobs are kept 30 days)`);
  for (const id of [asking, running]) {
    const kept = await h.call("GET", `/v1/jobs/${id}`, { key: t.agentKey });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
  }
  // Its audit entry stays (the security record), naming the job that is gone.
  const audit = await h.call("GET", `/v1/tenants/${t.tenantId}/audit?jobId=${deniedId}`, { key: t.adminKey });
  expect(audit.status, JSON.stringify(audit.body)).toBe(200);
  expect(audit.body.entries).toHaveLength(1);
  // Another tenant's live job answers with the very same words: nothing to tell them apart.
  const other = await seedTenant(h.call, "other");
  const theirs = await h.call("GET", `/v1/jobs/${asking}`, { key: other.agentKey });
  expect(theirs.status).toBe(404);
  expect(theirs.body.error.message).toBe(`job ${asking} not found (finished jobs are kept 30 days)`);
  // The pruner counted it.
  expect(await h.service.deps.metrics.render()).toMatch(/toolshed_rows_pruned_total\{kind="jobs"\} [1-9]/);

  await h.call("POST", `/v1/jobs/${running}/cancel`, { key: t.agentKey });
  await h.call("POST", `/v1/jobs/${asking}/cancel`, { key: t.agentKey });
});

it("an idempotency key answers with its job while the job is kept, and names a new call once it is gone", async () => {
  const body = { tool: "Bash", input: { command: "rm z" }, idempotencyKey: "step-1" };
  const first = await submit(body);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  await pruneAt(29);
  const again = await submit(body);
  expect(again.body.job.id).toBe(first.body.job.id);
  await pruneAt(31);
  const after = await submit(body);
  expect(after.status, JSON.stringify(after.body)).toBe(200);
  expect(after.body.job.id).not.toBe(first.body.job.id);
});
