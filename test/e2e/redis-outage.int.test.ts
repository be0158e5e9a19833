/**
 * Redis restarted empty under a running worker process (API in-process, worker as its own
 * process, both on a Redis of this test's own): 12 queued calls lose their queue entries and
 * all still finish, without restarting the worker; a submit during the outage answers 503
 * UNAVAILABLE with Retry-After at once, and both /readyz name Redis. A Redis that hangs (frozen,
 * its connections open) is answered alike, once the command timeout passes.
 */
// suite: parallel — the Redis it stops and freezes is its own (startPrivateRedis, a free port)
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ChildService, startChild } from "../support/child-service.js";
import { type Harness, seedBashTenant, seedTenant, startHarness } from "../support/harness.js";
import { type PrivateRedis, startPrivateRedis } from "../support/private-redis.js";
import { waitForJobs } from "../support/wait-for-job.js";

let redis: PrivateRedis;
let h: Harness;
let worker: ChildService;

beforeAll(async () => {
  redis = await startPrivateRedis();
  h = await startHarness({ mode: "api", env: { REDIS_URL: redis.url } });
  // One call at a time: the 12 calls wait in the queue behind the first one.
  worker = await startChild("worker", h.env, { WORKER_CONCURRENCY: "1", RECONCILE_INTERVAL_MS: "1000" });
});
afterAll(async () => {
  redis?.freeze(false);
  await worker?.stop();
  await h?.stop();
  await redis?.kill();
});

it("Redis restarted empty: queued calls all finish without a worker restart; submit meanwhile is 503", async () => {
  const t = await seedBashTenant(h.call);
  const sessions: string[] = [];
  for (let i = 0; i < 3; i++)
    sessions.push((await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id);
  const submit = (sid: string, command: string) =>
    h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command } },
    });

  const blocker = (await submit(sessions[0]!, "sleep 3; echo first")).body.job.id as string;
  const queued: string[] = [];
  for (let i = 0; i < 12; i++) {
    const res = await submit(sessions[i % 3]!, `echo x >> /workspace/counter-${i}; echo ${i}`);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    queued.push(res.body.job.id);
  }
  const job = async (id: string) => (await h.call("GET", `/v1/jobs/${id}`, { key: t.agentKey })).body.job;
  expect((await Promise.all(queued.map(job))).map((j) => j.status)).toEqual(queued.map(() => "queued"));

  await redis.kill();
  // During the outage: a submit answers 503 at once (well before this client's own 5 s abort).
  const t503 = performance.now();
  const during = await fetch(`${h.url}/v1/sessions/${sessions[1]}/calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.agentKey}`, "content-type": "application/json" },
    body: JSON.stringify({ tool: "Bash", input: { command: "echo during" } }),
    signal: AbortSignal.timeout(5000),
  });
  const problem = (await during.json()) as { error: { code: string } };
  const answeredMs = performance.now() - t503;
  expect(during.status, JSON.stringify(problem)).toBe(503);
  expect(problem.error.code).toBe("UNAVAILABLE");
  expect(Number(during.headers.get("retry-after"))).toBeGreaterThan(0);
  for (const url of [h.url, worker.url]) {
    const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) });
    expect(ready.status, url).toBe(503);
    expect(((await ready.json()) as { checks: { redis: { ok: boolean } } }).checks.redis.ok).toBe(false);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }

  await redis.start();
  const tBack = performance.now();
  const all = [blocker, ...queued];
  const last = await waitForJobs(h.call, t.agentKey, all, undefined, { timeoutMs: 60_000, intervalMs: 250 });
  expect(last.map((j) => j.status)).toEqual(all.map(() => "succeeded"));
  const recoveredMs = performance.now() - tBack;
  console.log(
    `redis outage: submit answered 503 in ${answeredMs.toFixed(0)} ms; 13 calls done ${recoveredMs.toFixed(0)} ms after redis was back`,
  );
  expect(worker.proc.exitCode).toBeNull();
  const outputs = (await Promise.all(queued.map(job))).map((j) => j.result.content[0].text);
  expect(outputs).toEqual(queued.map((_, i) => `${i}\n`));
  // Each queued call ran once.
  for (const sid of sessions) {
    const count = await h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command: "cat /workspace/counter-* | wc -l" } },
    });
    expect(count.body.job.result.content[0].text.trim()).toBe("4");
  }
  const ready = await fetch(`${worker.url}/readyz`);
  expect(ready.status).toBe(200);
  const metrics = await (await fetch(`${worker.url}/metrics`)).text();
  expect(metrics).toMatch(/toolshed_jobs_reconciled_total \d+/);
  for (const sid of sessions) await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 150_000);

it("a hung Redis: submit answers 503 UNAVAILABLE (command timeout), and works again once it answers", async () => {
  const t = await seedTenant(h.call, "hung");
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, {
    key: t.adminKey,
    body: { allow: ["Read"], deny: [], ask: [] },
  });
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const submit = () =>
    fetch(`${h.url}/v1/sessions/${sid}/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.agentKey}`, "content-type": "application/json" },
      body: JSON.stringify({ tool: "Read", input: { file_path: "/workspace/none" } }),
      signal: AbortSignal.timeout(5000),
    });
  redis.freeze(true);
  try {
    const during = await submit();
    const problem = (await during.json()) as { error: { code: string } };
    expect(during.status, JSON.stringify(problem)).toBe(503);
    expect(problem.error.code).toBe("UNAVAILABLE");
    expect(Number(during.headers.get("retry-after"))).toBeGreaterThan(0);
    const ready = await fetch(`${h.url}/readyz`, { signal: AbortSignal.timeout(5000) });
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: { redis: object } }).checks.redis).toEqual({
      ok: false,
      error: "timed out",
    });
  } finally {
    redis.freeze(false);
  }
  const after = await submit();
  expect(after.status).toBe(202);
}, 60_000);
