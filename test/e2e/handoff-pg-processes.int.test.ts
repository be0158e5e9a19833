/**
 * Postgres, two processes on one database: a serve process (its inserts claim their own rows for
 * the sessions pinned to it) and an API-only process (its inserts are queued and reach the serve
 * process's worker through the queue). Submits of one session through both at once still run
 * one at a time, in the session's order. Postgres comes from scripts/postgres.sh; the file skips
 * when it cannot be started here (CI runs it).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildService, startChild } from "../support/child-service.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../support/postgres.js";
import { waitForJobs } from "../support/wait-for-job.js";

const server = localPostgresUrl();

describe.skipIf(!server && !process.env.CI)("hand-off on Postgres, two processes", () => {
  let dbUrl: string;
  let h: Harness;
  let api: ChildService;
  beforeAll(async () => {
    dbUrl = await freshDatabase(server!);
    h = await startHarness({
      mode: "serve",
      env: { DATABASE_URL: dbUrl, TOOLSHED_SECRET_KEY: randomBytes(32).toString("base64") },
    });
    api = await startChild("api", h.env);
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    await h?.stop();
    if (dbUrl) await dropDatabase(server!, dbUrl);
  }, 120_000);

  it("submits of one session through a serve and an API process at once run one at a time, in seq order", async () => {
    const t = await seedBashTenant(h.call, "pg2");
    const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
    await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, { key: t.agentKey, body: bash("true") });
    // Each call takes a lock directory: a second call running beside it finds it taken.
    const step = (i: number) =>
      `mkdir /workspace/lk 2>/dev/null || echo OVERLAP >> /workspace/o; echo ${i} >> /workspace/o; sleep 0.05; rmdir /workspace/lk`;
    // The first is claimed by its own insert (serve); the rest race it and each other through
    // both processes (the serve process's inserts claim theirs when nothing is ahead).
    const first = await post(h.url, t.agentKey, sid, `sleep 0.2; ${step(0)}`);
    expect(first.status).toBe("running");
    const rest = await Promise.all(
      Array.from({ length: 9 }, (_, i) => post(i % 2 === 0 ? api.url : h.url, t.agentKey, sid, step(i + 1))),
    );
    const ids = [first, ...rest].map((s) => s.id);
    const done = await waitForJobs(h.call, t.agentKey, ids, undefined, { timeoutMs: 90_000 });
    expect(done.map((j) => j.status)).toEqual(ids.map(() => "succeeded"));
    const rows = await Promise.all(ids.map((id) => h.service.deps.store.findJob(id)));
    const bySeq = ids
      .map((_, i) => ({ i, seq: rows[i]!.seq ?? 0 }))
      .sort((a, b) => a.seq - b.seq)
      .map((r) => String(r.i));
    const out = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
      key: t.agentKey,
      body: bash("cat /workspace/o"),
    });
    expect(out.body.job.result.content[0].text).toBe(`${bySeq.join("\n")}\n`);
    await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
  }, 120_000);
});

const bash = (command: string) => ({ tool: "Bash", input: { command } });

async function post(url: string, key: string, sid: string, command: string) {
  const r = await fetch(`${url}/v1/sessions/${sid}/calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(bash(command)),
  });
  const body = (await r.json()) as { job: { id: string; status: string } };
  expect(r.status, JSON.stringify(body)).toBe(202);
  return body.job;
}
