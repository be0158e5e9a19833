/**
 * A call's side effect happens once. The API and the worker run as separate processes; the
 * worker is SIGKILLed with calls in flight, the API under a waiting client, or a session's
 * container under a call: every counter has at most one line, and every job's final state
 * agrees with its counter.
 */
// suite: parallel — the container it looks up is its own session's (by label)
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Dockerode from "dockerode";
import { expect, it } from "vitest";
import { LABEL_SESSION } from "../../src/sandbox/container-spec.js";
import { apiWithChildWorkers } from "../support/child-workers.js";
import { seedBashTenant } from "../support/harness.js";
import { countStatus, pollUntil, waitForJob, waitForJobs } from "../support/wait-for-job.js";

const docker = new Dockerode();
const fx = apiWithChildWorkers();
let inProcess: Promise<unknown> | undefined;
/** One in-process worker for the rest of the file (after the child worker is gone). */
const inProcessWorker = () => (inProcess ??= fx.h.start("worker"));

/** The lines of a file in a session's workspace, read on the host (no call, so no side effect). */
function linesOf(sid: string, name: string): string[] {
  const path = join(fx.h.config.DATA_DIR, "sb", "workspaces", sid, name);
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter(Boolean);
}

/** Waits until at least `atLeast` of the calls are running. */
async function untilRunning(key: string, ids: string[], atLeast: number): Promise<void> {
  await waitForJobs(fx.h.call, key, ids, (jobs) => countStatus(jobs, "running") >= atLeast, {
    timeoutMs: 30_000,
    intervalMs: 50,
  });
}

it("kill -9 of the worker with calls in flight: the next worker re-attaches, nothing runs twice", async () => {
  const t = await seedBashTenant(fx.h.call, "once");
  const sessions: string[] = [];
  for (let i = 0; i < 10; i++) {
    sessions.push((await fx.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id);
  }
  const child = await fx.spawn("worker");
  // Two calls per session: the first in flight when the worker dies, the second still queued.
  const jobs: { sid: string; id: string; n: number }[] = [];
  for (const n of [0, 1]) {
    for (const sid of sessions) {
      const r = await fx.h.call("POST", `/v1/sessions/${sid}/calls`, {
        key: t.agentKey,
        body: {
          tool: "Bash",
          input: { command: `echo x >> /workspace/counter-${n}; sleep 2; echo done-${n}` },
        },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      jobs.push({ sid, id: r.body.job.id, n });
    }
  }
  await untilRunning(
    t.agentKey,
    jobs.map((j) => j.id),
    4,
  );
  await child.stop("SIGKILL");

  await inProcessWorker();
  const views = await waitForJobs(
    fx.h.call,
    t.agentKey,
    jobs.map((j) => j.id),
  );
  for (const [i, j] of jobs.entries()) {
    const lines = linesOf(j.sid, `counter-${j.n}`);
    expect(lines.length, `${j.id} ran ${lines.length} times`).toBeLessThanOrEqual(1);
    // The container never died, so nothing is unknowable: every call succeeded, exactly once.
    expect(views[i]!.status).toBe("succeeded");
    expect(lines).toEqual(["x"]);
  }
  // The re-attached calls say which workers took them.
  const taken = views.filter((v) => v.attempts.length > 1);
  expect(taken.length).toBeGreaterThanOrEqual(4);
  for (const v of taken) {
    expect(v.attempts[0].outcome).toBe("worker lost");
    // Where the dead worker had reached the sandbox, the next one used the same executor.
    if (v.attempts[0].sandbox) expect(v.attempts[1].sandbox).toBe(v.attempts[0].sandbox);
    expect(v.result.content[0].text).toMatch(/done-/);
  }
}, 240_000);

it("the container killed under a call: the call ends interrupted and is not run again", async () => {
  const t = await seedBashTenant(fx.h.call, "killed");
  await inProcessWorker();
  const sid = (await fx.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const r = await fx.h.call("POST", `/v1/sessions/${sid}/calls`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "echo x >> /workspace/counter; sleep 30" } },
  });
  const id = r.body.job.id as string;
  await untilRunning(t.agentKey, [id], 1);
  await pollUntil(
    () => linesOf(sid, "counter"),
    (lines) => lines.length > 0,
    { timeoutMs: 10_000, intervalMs: 50, what: "the call's first line" },
  );
  const [container] = await docker.listContainers({ filters: { label: [`${LABEL_SESSION}=${sid}`] } });
  await docker.getContainer(container!.Id).kill();

  const job = await waitForJob(fx.h.call, t.agentKey, id);
  expect(job.status).toBe("interrupted");
  expect(job.result.content[0].text).toMatch(/may have partly run/);
  expect(job.attempts.length).toBe(2);
  expect(job.attempts[1].sandbox).not.toBe(job.attempts[0].sandbox);
  expect(linesOf(sid, "counter")).toEqual(["x"]);
  // The audit has the takeover and its verdict.
  const trail = await fx.h.call("GET", `/v1/tenants/${t.tenantId}/audit?jobId=${id}`, { key: t.adminKey });
  const attempts = trail.body.entries.filter((e: { kind: string }) => e.kind === "attempt");
  expect(attempts.map((e: { data: { outcome?: string } }) => e.data.outcome ?? "taken over").sort()).toEqual([
    "interrupted",
    "taken over",
  ]);
  // The session goes on in a fresh container on the same workspace.
  const next = await fx.h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "cat /workspace/counter" } },
  });
  expect(next.body.job.status).toBe("succeeded");
}, 240_000);

it("kill -9 of the API while a client waits: the call still runs once, and another API answers it", async () => {
  const t = await seedBashTenant(fx.h.call, "api-crash");
  await inProcessWorker();
  const api = await fx.spawn("api");
  const sid = (await fx.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  // The client's wait goes to the child API; its answer never comes (the API dies under it).
  const waiting = fetch(`${api.url}/v1/sessions/${sid}/calls?wait=30`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.agentKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      tool: "Bash",
      input: { command: "echo x >> /workspace/counter; sleep 2; echo done" },
    }),
  }).then(
    () => "answered",
    () => "connection lost",
  );
  await pollUntil(
    () => Promise.resolve(linesOf(sid, "counter")),
    (lines) => lines.length > 0,
    { timeoutMs: 60_000, intervalMs: 50 },
  );
  await api.stop("SIGKILL");
  expect(await waiting).toBe("connection lost");
  // The job lives in the store, not in the API process: the harness's own API sees it finish.
  const list = await fx.h.call("GET", `/v1/tenants/${t.tenantId}/audit?sessionId=${sid}`, {
    key: t.adminKey,
  });
  const jobId = list.body.entries.find((e: { kind: string }) => e.kind === "decision").jobId as string;
  const job = await waitForJob(fx.h.call, t.agentKey, jobId);
  expect(job.status).toBe("succeeded");
  expect(linesOf(sid, "counter")).toEqual(["x"]);
}, 240_000);
