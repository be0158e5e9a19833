/**
 * A host frozen (SIGSTOP) under a call, declared lost, its session re-homed and the call taken
 * over on the other host, then resumed (attack27a): the resumed worker must not act on the call
 * any more. Two worker processes, each on its own Docker engine (the machine's, and a second
 * engine of this file's own, `scripts/cluster.sh engine-up` in its own directory: it is frozen
 * too, and stopped at the end). On Postgres (integration-pg) each worker has its own DATA_DIR.
 */
// suite: serial — freezes its own worker processes and second engine under a 3 s host TTL: a neighbour file's load could stretch a freeze past what the test means
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { ChildService } from "../support/child-service.js";
import { seedBashTenant } from "../support/harness.js";
import { twoHosts } from "../support/own-second-engine.js";
import { jobText, runTool } from "../support/tool-calls.js";
import { type JobView, pollUntil, waitForJob } from "../support/wait-for-job.js";

const { f, engine2, dockerd2, workers, worker } = twoHosts("/var/tmp/ts-zombie", {
  HOST_TTL_MS: "3000",
  SANDBOX_WARM_POOL: "0",
});

/** A session pinned to host 2 by a call that needs no sandbox: it has no container yet. */
async function pinnedSession(key: string): Promise<string> {
  const sid = (await f.h.call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
  const task = await f.h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key,
    body: { tool: "TaskCreate", input: { subject: "s", description: "d" } },
  });
  expect(task.body.job?.status, JSON.stringify(task.body)).toBe("succeeded");
  return sid;
}

/**
 * A Bash call running on host 2, in a session pinned there while host 1 could take no placement
 * work (frozen well under its TTL), then host 2's worker frozen once the command made `marker`
 * in its workspace. The command goes on in its container.
 */
async function frozenUnder(key: string, command: string, marker: string) {
  const [w2, w1] = workers as [ChildService, ChildService];
  w1.proc.kill("SIGSTOP");
  const sid = await pinnedSession(key).finally(() => w1.proc.kill("SIGCONT"));
  const submitted = await f.h.call("POST", `/v1/sessions/${sid}/calls`, {
    key,
    body: { tool: "Bash", input: { command } },
  });
  const made = join(f.h.config.DATA_DIR, "sb-host2", "workspaces", sid, marker);
  await pollUntil(() => existsSync(made), Boolean, {
    timeoutMs: 30_000,
    intervalMs: 20,
    what: "the command's start on host 2",
  });
  w2.proc.kill("SIGSTOP");
  return { sid, jid: submitted.body.job.id as string, w2 };
}

it("a host frozen between its claims and their first sandbox operation, re-homed and run elsewhere, then resumed: a Bash call and an upload each ran once", async () => {
  const t = await seedBashTenant(f.h.call, "zombie");
  const rules = { allow: ["Bash", "Write(/workspace/**)"], deny: [], ask: [] };
  await f.h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  const w2 = await worker("host2", engine2);
  const [bashSid, uploadSid] = [await pinnedSession(t.agentKey), await pinnedSession(t.agentKey)];
  const w1 = await worker("host1", undefined);

  // Host 2's engine frozen: the claims land, the containers' creation hangs.
  process.kill(dockerd2, "SIGSTOP");
  const bash = (
    await f.h.call("POST", `/v1/sessions/${bashSid}/calls`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command: "echo x >> /workspace/f; echo done" } },
    })
  ).body.job.id as string;
  // The upload answers once its transfer ran (anywhere); its job is found in the session's list.
  const upload = fetch(`${f.h.url}/v1/sessions/${uploadSid}/files?path=f`, {
    method: "PUT",
    headers: { authorization: `Bearer ${t.agentKey}`, "content-type": "application/octet-stream" },
    body: new Uint8Array(Buffer.from("x\n")),
  });
  const jobsOf = (sid: string) =>
    f.h.call("GET", `/v1/jobs?sessionId=${sid}`, { key: t.agentKey }).then((r) => r.body.items as JobView[]);
  const running = (sid: string) =>
    pollUntil(() => jobsOf(sid).then((items) => items.find((j) => j.status === "running")), Boolean, {
      timeoutMs: 20_000,
      intervalMs: 20,
      what: `host 2's claim in ${sid}`,
    }) as Promise<JobView>;
  const claimed = [await running(bashSid), await running(uploadSid)];
  // The worker frozen with its requests to the engine in flight; the engine goes on.
  w2.proc.kill("SIGSTOP");
  process.kill(dockerd2, "SIGCONT");
  for (const c of claimed) {
    expect(c.attempts, JSON.stringify(c)).toHaveLength(1);
    expect(c.attempts[0].sandbox).toBeUndefined();
  }

  // Host 2 is lost (its key lapses after 3 s): host 1 re-homes the sessions and runs both.
  const up = await upload;
  expect(up.status, await up.clone().text()).toBe(200);
  const done = [
    await waitForJob(f.h.call, t.agentKey, bash, { timeoutMs: 30_000 }),
    await waitForJob(f.h.call, t.agentKey, claimed[1]!.id, { timeoutMs: 30_000 }),
  ];
  for (const [i, j] of done.entries()) {
    expect(j.status, JSON.stringify(j)).toBe("succeeded");
    expect(j.hostId).not.toBe(claimed[i]!.hostId);
  }

  // Host 2 resumes: its runs are someone else's now; it sends nothing to its sandboxes.
  w2.proc.kill("SIGCONT");
  const zombieFiles = [bashSid, uploadSid].map((sid) =>
    join(f.h.config.DATA_DIR, "sb-host2", "workspaces", sid, "f"),
  );
  const refused = (jid: string) => w2.lines.some((l) => l.includes("attempt superseded") && l.includes(jid));
  // Each run on host 2 either acts (the file) or is refused (its line). Without the fence the
  // upload's run would find its staged bytes gone (the transfer succeeded) and say nothing: this
  // wait then fails; the fence stops it before that, also where the bytes are still there.
  await pollUntil(
    () => done.map((j, i) => existsSync(zombieFiles[i]!) || refused(j.id)),
    (seen) => seen.every(Boolean),
    { timeoutMs: 25_000, intervalMs: 100, what: "host 2's runs to act or be refused" },
  );
  for (const p of zombieFiles)
    expect(existsSync(p) ? readFileSync(p, "utf8") : "", `${p}: written again on host 2`).toBe("");
  for (const [i, j] of done.entries()) {
    const after = (await f.h.call("GET", `/v1/jobs/${j.id}`, { key: t.agentKey })).body.job;
    expect(after.status).toBe("succeeded");
    // Host 1's attempt keeps its own sandbox (the resumed worker does not write over it).
    expect(after.attempts, `job ${i}`).toEqual(j.attempts);
  }
  expect(w1.proc.exitCode).toBeNull();
}, 120_000);

it("a host frozen under a command that moves the session's cwd, resumed after the call was interrupted and later calls moved it: the zombie's cd is not adopted", async () => {
  const t = await seedBashTenant(f.h.call, "zombie-cwd");
  const {
    sid,
    jid: first,
    w2,
  } = await frozenUnder(t.agentKey, "mkdir -p /workspace/b; sleep 3; cd /workspace/b", "b");
  // Host 2 lost: the call ends interrupted on host 1 (it may have partly run); the agent moves on.
  const interrupted = await waitForJob(f.h.call, t.agentKey, first, { timeoutMs: 30_000 });
  expect(interrupted.status, JSON.stringify(interrupted)).toBe("interrupted");
  const moved = await runTool(f.h.call, t.agentKey, sid, "Bash", {
    command: "mkdir -p /workspace/a /workspace/b && cd /workspace/a && pwd",
  });
  expect(jobText(moved)).toBe("/workspace/a\n");

  // Host 2 resumes: its command ended meanwhile in its old container, in /workspace/b.
  w2.proc.kill("SIGCONT");
  const cwd = () => f.h.call("GET", `/v1/sessions/${sid}`, { key: t.agentKey }).then((r) => r.body.cwd);
  const refused = () => w2.lines.some((l) => l.includes("attempt superseded") && l.includes(first));
  await pollUntil(async () => refused() || (await cwd()) !== "/workspace/a", Boolean, {
    timeoutMs: 25_000,
    intervalMs: 100,
    what: "host 2's run to end",
  });
  expect(await cwd()).toBe("/workspace/a");
  const pwd = await runTool(f.h.call, t.agentKey, sid, "Bash", { command: "pwd" });
  expect(jobText(pwd)).toBe("/workspace/a\n");
}, 90_000);

it("a cancel while its host is frozen under the command: the call ends cancelled saying it may have partly run, and is never run again", async () => {
  const t = await seedBashTenant(f.h.call, "zombie-cancel");
  const { sid, jid, w2 } = await frozenUnder(
    t.agentKey,
    "echo x >> /workspace/f; sleep 3; echo y >> /workspace/f",
    "f",
  );
  // Its worker hears nothing: the flag is stored, the message waits in a frozen socket.
  const cancel = await f.h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey });
  expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
  const job = await waitForJob(f.h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  expect(jobText(job)).toMatch(/may have partly run/);
  w2.proc.kill("SIGCONT");
  // Not run again on the session's new host, whose workspace it never reached.
  const next = await runTool(f.h.call, t.agentKey, sid, "Bash", {
    command: "cat /workspace/f 2>/dev/null | wc -l",
  });
  expect(jobText(next)).toBe("0\n");
  expect((await f.h.call("GET", `/v1/jobs/${jid}`, { key: t.agentKey })).body.job.status).toBe("cancelled");
}, 90_000);
