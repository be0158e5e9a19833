/**
 * Exactly-once beyond the sandbox (fence28): a host frozen (SIGSTOP) between a call's claim and
 * its effect outside the sandbox (a task write, an MCP request over HTTP), declared lost, the
 * call taken over on the other host, then resumed. The resumed worker must neither write the
 * task again nor send the MCP request, and an MCP answer it gets late must not reach the call.
 * The freeze is placed exactly by an MCP server of the test's own that holds the worker's
 * request (its listing, or the call itself) until the worker is frozen. And a call left waiting
 * in a lost host's queue: the host, back, must not deliver it a second time. Two worker processes on
 * two Docker engines, as zombie-host.int.test.ts (attack27a), with a second engine of this file's
 * own directory.
 */
// suite: serial — freezes its own worker processes under a 3 s host TTL: a neighbour file's load could stretch a freeze past what the test means
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bullPrefix, hostQueueName } from "../../src/jobs/catalog.js";
import { CONFIG_TTL_MS } from "../../src/service/tenant-read-cache.js";
import { ATTEMPT_META, IDEMPOTENCY_META } from "../../src/toolkit/mcp/mcp-client.js";
import { LOOPBACK_ALLOW, startTinyMcpServer, type TinyMcpServer } from "../mcp/support.js";
import type { ChildService } from "../support/child-service.js";
import { seedTenant } from "../support/harness.js";
import { twoHosts } from "../support/own-second-engine.js";
import { jobText } from "../support/tool-calls.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

const { f, engine2, workers, worker } = twoHosts("/var/tmp/ts-fence28", {
  HOST_TTL_MS: "3000",
  SANDBOX_WARM_POOL: "0",
  EGRESS_ALLOW: LOOPBACK_ALLOW,
});

/** Whether the server holds the request it gets now (set by a test while it places a freeze). */
let holding: ((method: string) => boolean) | undefined;
let mcp: TinyMcpServer;
let redis: Redis;

beforeAll(async () => {
  mcp = await startTinyMcpServer({
    answerCalls: true,
    act: "zombie-answer",
    hold: (m) => holding?.(m) ?? false,
  });
  redis = new Redis(f.h.config.REDIS_URL);
  await worker("host2", engine2);
  await worker("host1", undefined);
});

afterAll(async () => {
  for (const h of mcp?.held ?? []) h.answer();
  mcp?.server.closeAllConnections();
  await new Promise((r) => mcp?.server.close(r));
  redis?.disconnect();
});

/**
 * A tenant with the test's MCP server, and a session of it pinned to host 2 (host 1 frozen
 * meanwhile) whose toolkit the API has built: the next listing of the server comes from host 2.
 */
async function sessionOnHost2(name: string) {
  const [w2, w1] = workers as [ChildService, ChildService];
  const t = await seedTenant(f.h.call, name);
  const rules = { allow: ["Bash", "mcp__gate__act"], deny: [], ask: [] };
  await f.h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  w1.proc.kill("SIGSTOP");
  const { id: sid, host: host2 } = await (async () => {
    const id = (await f.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
    const task = await f.h.call("POST", `/v1/sessions/${id}/calls?wait=30`, {
      key: t.agentKey,
      body: { tool: "TaskCreate", input: { subject: "first", description: "d" } },
    });
    expect(task.body.job?.status, JSON.stringify(task.body)).toBe("succeeded");
    return { id, host: task.body.job.hostId as string };
  })().finally(() => w1.proc.kill("SIGCONT"));
  // Registered after host 2 built the session's toolkit: host 2 has never listed it.
  const add = await f.h.call("POST", `/v1/tenants/${t.tenantId}/mcp-servers`, {
    key: t.adminKey,
    body: { name: "gate", transport: "http", url: mcp.url },
  });
  expect(add.status, JSON.stringify(add.body)).toBe(201);
  await pollUntil(
    () => f.h.call("GET", `/v1/sessions/${sid}/tools`, { key: t.agentKey }),
    (r) =>
      (r.body.tools as { name: string }[] | undefined)?.some((x) => x.name === "mcp__gate__act") ?? false,
    { timeoutMs: 10_000, intervalMs: 100, what: "the API to list the server" },
  );
  // Host 2's cached view of the tenant's servers (from the pinning call) expires: it sees the server.
  await new Promise((r) => setTimeout(r, 2 * CONFIG_TTL_MS));
  return { t, sid, w2, host2 };
}

/** Submits the call with the server holding `method`; freezes host 2 once it sent one, then answers it. */
async function frozenAt(
  t: { agentKey: string },
  sid: string,
  w2: ChildService,
  method: string,
  body: object,
) {
  const before = mcp.held.length;
  holding = (m) => m === method;
  const jid = (await f.h.call("POST", `/v1/sessions/${sid}/calls`, { key: t.agentKey, body })).body.job
    .id as string;
  await pollUntil(
    () => mcp.held.length,
    (n) => n > before,
    { timeoutMs: 20_000, intervalMs: 10, what: `host 2's ${method}` },
  )
    .catch(async (err) => {
      const job = (await f.h.call("GET", `/v1/jobs/${jid}`, { key: t.agentKey })).body.job;
      console.log("DEBUG", JSON.stringify(job), mcp.listings, mcp.connections);
      for (const w of workers) console.log("DEBUG", w.lines.slice(-15).join("\n"));
      throw err;
    })
    .finally(() => {
      holding = undefined;
    });
  w2.proc.kill("SIGSTOP");
  // The answer waits in the frozen worker's socket.
  for (const h of mcp.held.splice(before)) h.answer();
  return jid;
}

const said = (w: ChildService, jid: string, what: string) =>
  w.lines.some((l) => l.includes(what) && l.includes(jid));

it("a host frozen after claiming a TaskCreate, re-homed and run elsewhere, then resumed: the task is created once", async () => {
  const { t, sid, w2 } = await sessionOnHost2("fence-task");
  const jid = await frozenAt(t, sid, w2, "initialize", {
    tool: "TaskCreate",
    input: { subject: "once", description: "d" },
  });
  // Host 2 lost: host 1 runs it (a task call runs again on a take-over).
  const done = await waitForJob(f.h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(done.status, JSON.stringify(done)).toBe("succeeded");
  expect(jobText(done)).toBe("Task (id=2) created successfully: once");

  w2.proc.kill("SIGCONT");
  const ids = async () =>
    jobText(
      (
        await f.h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
          key: t.agentKey,
          body: { tool: "TaskList", input: {} },
        })
      ).body.job,
    )
      .split("\n")
      .map((line) => line.split(" ")[0]);
  await pollUntil(async () => said(w2, jid, "attempt superseded") || (await ids()).length > 2, Boolean, {
    timeoutMs: 25_000,
    intervalMs: 200,
    what: "host 2's run to write or be refused",
  });
  expect(await ids(), "the task was created again on host 2").toEqual(["1", "2"]);
}, 120_000);

it("a host frozen after claiming an MCP call over HTTP, the call interrupted elsewhere, then resumed: the request is never sent", async () => {
  const { t, sid, w2 } = await sessionOnHost2("fence-mcp");
  const from = mcp.calls.length;
  const jid = await frozenAt(t, sid, w2, "initialize", { tool: "mcp__gate__act", input: {} });
  const done = await waitForJob(f.h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(done.status, JSON.stringify(done)).toBe("interrupted");

  w2.proc.kill("SIGCONT");
  const sent = () => mcp.calls.slice(from);
  // The run ends refused by the fence. (On a slow machine the listing it resumes in may time out
  // on the spot, its timer having run through the freeze: the run then has no such tool, and its
  // finish is refused. Either way nothing may be sent.)
  await pollUntil(
    () => said(w2, jid, "attempt superseded") || said(w2, jid, "finish refused") || sent().length > 0,
    Boolean,
    { timeoutMs: 25_000, intervalMs: 100, what: "host 2's run to send or be refused" },
  ).catch((err) => {
    console.log(w2.lines.filter((l) => l.includes(jid) || l.includes("mcp")).join("\n"));
    throw err;
  });
  expect(sent(), "the resumed worker sent the request after the call was interrupted").toEqual([]);
  expect(mcp.calls.map((c) => c.headers["idempotency-key"])).not.toContain(jid);
  expect((await f.h.call("GET", `/v1/jobs/${jid}`, { key: t.agentKey })).body.job.status).toBe("interrupted");
}, 120_000);

it("a host frozen with its MCP request in flight, the call interrupted elsewhere, then resumed: the late answer is neither stored nor sent as an event; the request carried the call's key", async () => {
  const { t, sid, w2 } = await sessionOnHost2("fence-mcp-late");
  const jid = await frozenAt(t, sid, w2, "tools/call", { tool: "mcp__gate__act", input: {} });
  const call = mcp.calls.at(-1)!;
  expect(call.headers["idempotency-key"]).toBe(jid);
  expect(call.headers["toolshed-attempt"]).toBe("1");
  expect(call.params._meta).toMatchObject({ [IDEMPOTENCY_META]: jid, [ATTEMPT_META]: 1 });

  const done = await waitForJob(f.h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(done.status, JSON.stringify(done)).toBe("interrupted");
  w2.proc.kill("SIGCONT");
  await pollUntil(() => said(w2, jid, "finish refused"), Boolean, {
    timeoutMs: 25_000,
    intervalMs: 100,
    what: "host 2's run to end",
  });
  const after = (await f.h.call("GET", `/v1/jobs/${jid}`, { key: t.agentKey })).body.job;
  expect(after.status).toBe("interrupted");
  expect(jobText(after)).not.toContain("zombie-answer");
  // The job's event stream (what a follower reads) got nothing from the zombie.
  const events = await redis.xrange(`${f.h.config.QUEUE_PREFIX}:job-events:${jid}`, "-", "+");
  expect(JSON.stringify(events), "the zombie's answer was appended to the job's events").not.toContain(
    "zombie-answer",
  );
}, 120_000);

it("a call waiting in a frozen host's queue, run elsewhere once the host is lost, then the host resumed: the stale entry is not delivered a second time", async () => {
  const { t, sid, w2, host2 } = await sessionOnHost2("fence-queue");
  // Host 2 frozen before it pulls anything: the call waits in its queue (its key still lives).
  w2.proc.kill("SIGSTOP");
  const jid = (
    await f.h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command: "sleep 6; echo once" } },
    })
  ).body.job.id as string;
  const entry = `${bullPrefix(f.h.config.QUEUE_PREFIX)}:${hostQueueName(host2)}:${jid}`;
  expect(await redis.exists(entry), "the call was queued for host 2").toBe(1);
  // Host 2 lost: host 1 re-homes the session and runs the call.
  const onHost1 = await pollUntil(
    () => f.h.call("GET", `/v1/jobs/${jid}`, { key: t.agentKey }).then((r) => r.body.job),
    (j) => j.status === "running" && j.hostId !== host2,
    { timeoutMs: 30_000, intervalMs: 50, what: "the call running on host 1" },
  );
  w2.proc.kill("SIGCONT");
  const done = await waitForJob(f.h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(done.status, JSON.stringify(done)).toBe("succeeded");
  expect(jobText(done)).toBe("once\n");
  // One delivery, one attempt: host 2's stale entry was not passed on to host 1 (a second,
  // take-over claim of the call while it ran there).
  expect(done.attempts, JSON.stringify(done.attempts)).toHaveLength(1);
  expect(done.attempts[0].worker).toBe(onHost1.attempts[0].worker);
  expect(await redis.exists(entry)).toBe(0);
}, 120_000);
