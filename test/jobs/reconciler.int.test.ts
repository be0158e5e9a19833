/**
 * The reconciler against real Redis (unique prefix): rows that expect a run and have no queue
 * entry are queued again; rows with an entry, finished rows and the ones this process runs are
 * left alone; a pass looks at a bounded batch and a sweep walks the whole table.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { jobs } from "../../src/db/schema.js";
import { startReconciler } from "../../src/jobs/reconciler.js";
import { workerIdentity } from "../../src/service/worker/worker-identity.js";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";
import { testQueue } from "../support/test-queue.js";

const { adapter, drop } = testQueue("rec");
let t: Awaited<ReturnType<typeof createApiTestApp>>;
let ids: string[];

beforeAll(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  const a = await seedTenant(t.call);
  await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, {
    key: a.adminKey,
    body: { allow: ["Read"], deny: [], ask: [] },
  });
  const sid = (await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} })).body.id;
  ids = [];
  for (let i = 0; i < 7; i++) {
    const res = await t.call("POST", `/v1/sessions/${sid}/calls`, {
      key: a.agentKey,
      body: { tool: "Read", input: { file_path: `/workspace/${i}` } },
    });
    ids.push(res.body.job.id);
  }
});
afterAll(async () => {
  await drop();
  t?.close();
});

it("queues again only the rows expecting a run whose entry is gone, a bounded batch per pass", async () => {
  // The rows live only in SQLite (the in-memory queue took them): 0 and 1 have real entries,
  // 2 runs on another worker and 4 in this process (their entries lost too), 3 finished.
  await adapter.enqueue(ids[0]!);
  await adapter.enqueue(ids[1]!);
  const running = (worker: string) => ({
    status: "running" as const,
    attempts: [{ n: 1, worker, startedAt: new Date().toISOString() }],
  });
  t.deps.db.update(jobs).set(running("elsewhere/1/x")).where(eq(jobs.id, ids[2]!)).run();
  t.deps.db.update(jobs).set({ status: "succeeded" }).where(eq(jobs.id, ids[3]!)).run();
  t.deps.db.update(jobs).set(running(workerIdentity())).where(eq(jobs.id, ids[4]!)).run();
  expect(await adapter.missing(ids)).toEqual(ids.slice(2));

  const rec = startReconciler(t.deps, adapter, { intervalMs: 3_600_000, batch: 3 });
  try {
    const first = await rec.pass();
    expect(first.wrapped).toBe(false);
    expect(first.requeued).toBeLessThanOrEqual(3);
    const total = first.requeued + (await rec.sweep());
    // 2, 5 and 6 had no entry and expect a run; 3 is finished, 4 is this process's own to
    // finish; 0 and 1 kept theirs.
    expect(total).toBe(3);
    expect(await adapter.missing(ids)).toEqual([ids[3], ids[4]]);
    // Nothing left to do: a second sweep queues nothing.
    expect(await rec.sweep()).toBe(0);
  } finally {
    await rec.stop();
  }
});
