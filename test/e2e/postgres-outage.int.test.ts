/**
 * Postgres stops under a running service (API and worker in one process, on a Postgres cluster
 * of this test's own) while a call runs, and comes back: meanwhile a submit answers 503
 * UNAVAILABLE naming the database and /readyz says the database is down, never a 500; once it
 * is back the service recovers by itself: the running call ends in a final status (never run
 * twice: it appends a line to a workspace file) and a new call runs, without a restart.
 */
// suite: parallel — the Postgres it stops is a cluster of its own, on a free port
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { type Harness, seedBashTenant } from "../support/harness.js";
import { ownPostgres, startHarnessOn, stopServiceAndCluster } from "../support/own-postgres.js";
import { pollUntil, readJob, waitForJob } from "../support/wait-for-job.js";

const root = mkdtempSync(join(tmpdir(), "tsh-pg-"));
// As root the server runs as `postgres`, which must reach its directory through this one.
chmodSync(root, 0o755);
const dir = join(root, "pg");
let port = 0;
let h: Harness;

const postgres = ownPostgres(dir, () => port);

beforeAll(async () => {
  // The cluster keeps this port across its restart.
  port = await freePort();
  h = await startHarnessOn(postgres("start"));
}, 120_000);
afterAll(async () => {
  try {
    postgres("start");
  } catch {}
  try {
    await stopServiceAndCluster(h, postgres);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 150_000);

it("Postgres stops while a call runs: 503 and not ready meanwhile; afterwards the call ends once and new calls run", async () => {
  const t = await seedBashTenant(h.call);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const submit = (command: string) =>
    fetch(`${h.url}/v1/sessions/${sid}/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.agentKey}`, "content-type": "application/json" },
      body: JSON.stringify({ tool: "Bash", input: { command } }),
      signal: AbortSignal.timeout(30_000),
    });

  // The session's container first, so that the call below is in its command when Postgres stops.
  const warm = await h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "true" } },
  });
  expect(warm.body.job?.status, JSON.stringify(warm.body)).toBe("succeeded");

  const first = await submit("sleep 3; echo once >> /workspace/runs; echo ok");
  expect(first.status).toBe(202);
  const jobId = ((await first.json()) as { job: { id: string } }).job.id;
  await waitForJob(h.call, t.agentKey, jobId, { until: ["running"], timeoutMs: 60_000, intervalMs: 50 });
  // Recorded before the outage too, queued behind the running call (same session, in order).
  const queued = await submit("echo queued >> /workspace/queued; echo q");
  expect(queued.status).toBe(202);
  const queuedId = ((await queued.json()) as { job: { id: string } }).job.id;
  // A client waiting on a third call (behind the other two) when Postgres stops: its wait ends
  // within the outage, and it is told the call was accepted (202 with the job), not a 503.
  const waiting = h.call("POST", `/v1/sessions/${sid}/calls?wait=8`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "echo waited >> /workspace/waited; echo w" } },
  });
  await pollUntil(
    () => h.call("GET", `/v1/jobs?sessionId=${sid}`, { key: t.agentKey }),
    (r) => r.body.items?.length === 4,
    { timeoutMs: 30_000, what: "the waiting call to be stored" },
  );

  postgres("stop");
  const during = await submit("echo during >> /workspace/runs");
  const problem = (await during.json()) as { error: { code: string; message: string } };
  expect(during.status, JSON.stringify(problem)).toBe(503);
  expect(problem.error.code).toBe("UNAVAILABLE");
  expect(problem.error.message).toMatch(/database/);
  expect(Number(during.headers.get("retry-after"))).toBeGreaterThan(0);
  const ready = await fetch(`${h.url}/readyz`, { signal: AbortSignal.timeout(30_000) });
  expect(ready.status).toBe(503);
  const checks = ((await ready.json()) as { checks: Record<string, { ok: boolean }> }).checks;
  expect(checks.database?.ok).toBe(false);
  expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
  // Reading the job is refused alike (503, not 500) while its row cannot be read.
  const read = await h.call("GET", `/v1/jobs/${jobId}`, { key: t.agentKey });
  expect(read.status, JSON.stringify(read.body)).toBe(503);
  expect(read.body.error.code).toBe("UNAVAILABLE");
  // The call's command ends while the database is still down (its result cannot be stored yet),
  // and the outage outlasts the queue's own retries of the steps that met it.
  await new Promise((r) => setTimeout(r, 10_000));

  postgres("start");
  const ended = await waitForJob(h.call, t.agentKey, jobId, { timeoutMs: 60_000, intervalMs: 250 });
  if (ended.status === "succeeded") expect(ended.result.content[0].text).toBe("ok\n");
  else {
    expect(ended.status).toMatch(/^(failed|interrupted)$/);
    expect(ended.error?.message ?? JSON.stringify(ended)).toMatch(/may have (partly )?(happened|run)/);
  }

  console.log(`postgres outage: the running call ended ${ended.status} (${ended.attempts?.length} attempts)`);
  // Its end could not be stored during the outage: the step was done again through a new claim
  // (a second attempt, judged by the take-over check), never by running the old claim again.
  expect(ended.attempts.length).toBeGreaterThanOrEqual(2);
  const waited = await waiting;
  expect(waited.status, JSON.stringify(waited.body)).toBe(202);
  const waitedId = waited.body.job.id as string;
  const queuedEnd = await waitForJob(h.call, t.agentKey, queuedId, { timeoutMs: 60_000, intervalMs: 250 });
  expect(queuedEnd.status).toBe("succeeded");
  expect(queuedEnd.result.content[0].text).toBe("q\n");
  const waitedEnd = await waitForJob(h.call, t.agentKey, waitedId, { timeoutMs: 60_000, intervalMs: 250 });
  expect(waitedEnd.status).toBe("succeeded");

  // A new call runs without a restart; each earlier call's line is there once (none ran twice).
  const after = await pollUntil(
    () =>
      h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
        key: t.agentKey,
        body: {
          tool: "Bash",
          input: { command: "cat /workspace/runs; echo ---; cat /workspace/queued /workspace/waited" },
        },
      }),
    (r) => r.status !== 503,
    { timeoutMs: 60_000, intervalMs: 500, what: "a submit accepted after the outage" },
  );
  expect(after.status, JSON.stringify(after.body)).toBe(200);
  expect(after.body.job.status).toBe("succeeded");
  const [runs, queuedRuns] = (after.body.job.result.content[0].text as string).split("---\n");
  expect(queuedRuns).toBe("queued\nwaited\n");
  const lines = runs!.trim().split("\n").filter(Boolean);
  // Succeeded: it ran once. Interrupted: it may have run, but at most once (never twice).
  expect(lines).toEqual(ended.status === "succeeded" ? ["once"] : lines.slice(0, 1));
  expect(lines.length).toBeLessThanOrEqual(1);
  expect((await fetch(`${h.url}/readyz`)).status).toBe(200);
  expect((await readJob(h.call, t.agentKey, jobId)).status).toBe(ended.status);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 240_000);
