/**
 * Hostile use of serve mode's in-process hand-off (src/jobs/local-handoff.ts): many concurrent
 * calls of one session, cancel and DELETE racing a handed-off call, maxActiveCalls, and another
 * tenant's ids. The session's order (seq) and "one unsafe call at a time" must hold, and no call
 * may be left running.
 */
import { eq } from "drizzle-orm";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tablesOf } from "../../src/db/db.js";
import { HostRegistry } from "../../src/jobs/host-registry.js";
import { ADMIN_KEY, type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { isFinal, pollUntil, readJob, waitForJobs } from "../support/wait-for-job.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: "serve" });
});
afterAll(async () => {
  await h?.stop();
});

const bash = (command: string) => ({ tool: "Bash", input: { command } });

it("concurrent handed-off calls of one session run one at a time, in seq order", async () => {
  const t = await seedBashTenant(h.call, "order");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const calls = `/v1/sessions/${sid}/calls`;
  await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") });
  // Each call takes a lock directory: a second call running beside it finds it taken.
  const step = (i: number) =>
    `mkdir /workspace/lk 2>/dev/null || echo OVERLAP >> /workspace/o; echo ${i} >> /workspace/o; sleep 0.05; rmdir /workspace/lk`;
  const subs = await Promise.all(
    Array.from({ length: 8 }, (_, i) => h.call("POST", calls, { key: t.agentKey, body: bash(step(i)) })),
  );
  const ids = subs.map((s) => {
    expect(s.status, JSON.stringify(s.body)).toBe(202);
    return s.body.job.id as string;
  });
  const done = await waitForJobs(h.call, t.agentKey, ids, undefined, { timeoutMs: 90_000 });
  expect(done.map((j) => j.status)).toEqual(ids.map(() => "succeeded"));
  const rows = await Promise.all(ids.map((id) => h.service.deps.store.findJob(id)));
  const bySeq = ids
    .map((_, i) => ({ i, seq: rows[i]!.seq ?? 0 }))
    .sort((a, b) => a.seq - b.seq)
    .map((r) => String(r.i));
  const out = await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("cat /workspace/o") });
  expect(out.body.job.result.content[0].text).toBe(`${bySeq.join("\n")}\n`);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 120_000);

it("cancel and DELETE session racing a handed-off call end it; another tenant gets 404", async () => {
  const t = await seedBashTenant(h.call, "race");
  const other = await seedBashTenant(h.call, "other");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const calls = `/v1/sessions/${sid}/calls`;
  await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") });

  const long = await h.call("POST", calls, { key: t.agentKey, body: bash("sleep 30") });
  const jid = long.body.job.id as string;
  // Run by this process's hand-off, not the queue.
  expect(h.service.deps.handoff?.ended(jid)).toBeDefined();
  // Another tenant: its key cannot see, wait on, or cancel this call.
  expect((await h.call("GET", `/v1/jobs/${jid}`, { key: other.agentKey })).status).toBe(404);
  expect((await h.call("POST", `/v1/jobs/${jid}/cancel`, { key: other.agentKey })).status).toBe(404);
  const cancel = await h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey });
  expect(cancel.status).toBeLessThan(300);
  const cancelled = await pollUntil(
    () => readJob(h.call, t.agentKey, jid),
    (j) => isFinal(j.status),
    { timeoutMs: 20_000 },
  );
  expect(cancelled.status).toBe("cancelled");

  // DELETE the session under a running call and a queued one behind it: both end, none runs on.
  const a = await h.call("POST", calls, { key: t.agentKey, body: bash("sleep 30") });
  const b = await h.call("POST", calls, { key: t.agentKey, body: bash("echo late > /tmp/late") });
  const del = await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
  expect(del.status, JSON.stringify(del.body)).toBeLessThan(300);
  const ended = await waitForJobs(h.call, t.agentKey, [a.body.job.id, b.body.job.id], undefined, {
    timeoutMs: 30_000,
  });
  for (const j of ended) expect(["cancelled", "failed", "interrupted"]).toContain(j.status);
  expect(h.service.deps.handoff?.ended(a.body.job.id)).toBeUndefined();
}, 120_000);

it("maxActiveCalls holds for handed-off calls submitted at once", async () => {
  const t = await seedBashTenant(h.call, "quota");
  await h.call("PUT", `/v1/tenants/${t.tenantId}/settings`, {
    key: ADMIN_KEY,
    body: { quotas: { maxActiveCalls: 2, callsPerMinute: 100 } },
  });
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const calls = `/v1/sessions/${sid}/calls`;
  await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") });
  const subs = await Promise.all(
    Array.from({ length: 6 }, () => h.call("POST", calls, { key: t.agentKey, body: bash("sleep 1") })),
  );
  const accepted = subs.filter((s) => s.status === 202);
  const refused = subs.filter((s) => s.status === 429);
  expect(accepted.length + refused.length, JSON.stringify(subs.map((s) => s.body))).toBe(6);
  expect(accepted.length).toBe(2);
  for (const r of refused) expect(r.body.error.code).toBe("RATE_LIMITED");
  const done = await waitForJobs(
    h.call,
    t.agentKey,
    accepted.map((s) => s.body.job.id),
    undefined,
    { timeoutMs: 60_000 },
  );
  expect(done.map((j) => j.status)).toEqual(["succeeded", "succeeded"]);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 120_000);

it("a call for a session pinned to another host is never run by this process's hand-off", async () => {
  const t = await seedBashTenant(h.call, "pinned");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const { db } = h.service.deps;
  const { sessions } = tablesOf(db);
  // Placed on a live host no process here is: as if another worker held its container. (Were
  // that host dead, this process's placement would rightly take the session over and run it.)
  const redis = new Redis(h.config.REDIS_URL);
  try {
    await new HostRegistry(redis, h.config.QUEUE_PREFIX, 60_000).beat("another-host");
  } finally {
    redis.disconnect();
  }
  await db.update(sessions).set({ hostId: "another-host" }).where(eq(sessions.id, sid));
  const sub = await h.call("POST", `/v1/sessions/${sid}/calls`, { key: t.agentKey, body: bash("true") });
  expect(sub.status, JSON.stringify(sub.body)).toBe(202);
  expect(sub.body.job.status).toBe("queued");
  const jid = sub.body.job.id as string;
  expect(h.service.deps.handoff?.ended(jid)).toBeUndefined();
  const row = await h.service.deps.store.findJob(jid);
  expect(row?.status).toBe("queued");
  expect(row?.runs ?? 0).toBe(0);
  await h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey });
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 60_000);

it("submits racing the session's DELETE: no 500, and every stored call ends", async () => {
  const t = await seedBashTenant(h.call, "delrace");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const calls = `/v1/sessions/${sid}/calls`;
  await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") });
  const submits = Array.from({ length: 6 }, (_, i) =>
    h.call("POST", calls, { key: t.agentKey, body: bash(`sleep 0.${i}`) }),
  );
  const del = h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
  const answers = await Promise.all([...submits, del]);
  for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBeLessThan(500);
  const stored = answers
    .slice(0, 6)
    .filter((a) => a.status === 202 || a.status === 200)
    .map((a) => a.body.job.id as string);
  const ended = await waitForJobs(h.call, t.agentKey, stored, undefined, { timeoutMs: 30_000 });
  for (const j of ended) expect(isFinal(j.status), JSON.stringify(j)).toBe(true);
}, 60_000);
