/**
 * A serve process (API and worker in one) runs the calls its API stores for sessions pinned to it
 * without the queue (src/jobs/local-handoff.ts). Its lease stands for the missing queue entry:
 * another process's reconciler leaves a handed-off call alone while the serve process lives, and
 * once it is SIGKILLed under calls, the lease expires, the calls are queued again and taken over:
 * the executor re-attaches, and every side effect happens once.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { apiWithChildWorkers } from "../support/child-workers.js";
import { seedBashTenant } from "../support/harness.js";
import { countStatus, waitForJobs } from "../support/wait-for-job.js";

// A short lease and quick reconciler passes, so that a dead process's calls come back soon.
const fx = apiWithChildWorkers({
  env: { JOB_LOCK_MS: "3000", JOB_STALLED_INTERVAL_MS: "1000", RECONCILE_INTERVAL_MS: "300" },
});

function linesOf(sid: string, name: string): string[] {
  const path = join(fx.h.config.DATA_DIR, "sb", "workspaces", sid, name);
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter(Boolean);
}

it("kill -9 of a serve process under handed-off calls: each is taken over once the lease ends, and runs once", async () => {
  const t = await seedBashTenant(fx.h.call, "handoff-crash");
  const serve = await fx.spawn("serve");
  const post = async (sid: string, command: string, wait = 0) => {
    const r = await fetch(`${serve.url}/v1/sessions/${sid}/calls${wait ? `?wait=${wait}` : ""}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.agentKey}`, "content-type": "application/json" },
      body: JSON.stringify({ tool: "Bash", input: { command } }),
    });
    const body = (await r.json()) as { job: { id: string; status: string } };
    return body.job;
  };
  const sessions: string[] = [];
  for (let i = 0; i < 4; i++) {
    const sid = (await fx.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
    // The first call places the session on the serve process's worker (through the queue).
    expect((await post(sid, "true", 60)).status).toBe("succeeded");
    sessions.push(sid);
  }
  // Another worker with a reconciler that passes every 300 ms, while the serve process lives.
  await fx.h.start("worker");

  // Round 1, nobody dies: the other worker's reconciler sees no queue entry for these calls, but
  // the lease, and leaves them to the serve process (each ran in one attempt).
  const first = await Promise.all(sessions.map((sid) => post(sid, "echo x >> /workspace/c1; sleep 1.5")));
  const firstViews = await waitForJobs(
    fx.h.call,
    t.agentKey,
    first.map((j) => j.id),
  );
  for (const [i, v] of firstViews.entries()) {
    expect(v.status, JSON.stringify(v)).toBe("succeeded");
    expect(v.attempts).toHaveLength(1);
    expect(linesOf(sessions[i]!, "c1")).toEqual(["x"]);
  }

  // Round 2: the serve process dies under its handed-off calls.
  const second = await Promise.all(
    sessions.map((sid) => post(sid, "echo x >> /workspace/c2; sleep 2; echo done")),
  );
  await waitForJobs(
    fx.h.call,
    t.agentKey,
    second.map((j) => j.id),
    (jobs) => countStatus(jobs, "running") === jobs.length,
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  await serve.stop("SIGKILL");
  const views = await waitForJobs(
    fx.h.call,
    t.agentKey,
    second.map((j) => j.id),
    undefined,
    { timeoutMs: 90_000 },
  );
  for (const [i, v] of views.entries()) {
    // The container lived on: the take-over re-attached to the command, which ran once.
    expect(v.status, JSON.stringify(v)).toBe("succeeded");
    expect(linesOf(sessions[i]!, "c2")).toEqual(["x"]);
    expect(v.attempts.length).toBe(2);
    expect(v.attempts[0].outcome).toBe("worker lost");
    expect(v.result.content[0].text).toMatch(/done/);
  }
}, 240_000);
