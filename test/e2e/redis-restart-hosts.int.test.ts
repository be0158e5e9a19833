/**
 * Redis restarted empty under two worker hosts (attack27a): every host's liveness key is gone at
 * once, with the list of hosts. A session pinned to a healthy host must stay there: its next
 * call runs on its host, in its workspace. Before, placement read "no liveness key" as "host
 * dead" and the first worker to pull the call took the session, marked `workspaceLost`.
 * Host 2 is paused (SIGSTOP, under its TTL: a GC pause, a slow disk) across the restart, so that
 * host 1 is the one to pull the call, and past host 1's next beat, which lists the pinned hosts
 * again.
 */
// suite: serial — pauses a worker under its host TTL across a restart of its own Redis: a neighbour file's load could stretch the pause past the TTL
import { Redis } from "ioredis";
import { afterAll, expect, it } from "vitest";
import { seedBashTenant } from "../support/harness.js";
import { twoHosts } from "../support/own-second-engine.js";
import { startPrivateRedis } from "../support/private-redis.js";
import { jobText, runTool } from "../support/tool-calls.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

const redis = await startPrivateRedis();
// Registered before the fixture's: it runs after the processes that use this Redis stopped.
afterAll(() => redis.kill());
const { f, engine2, worker } = twoHosts("/var/tmp/ts-redis-hosts", {
  REDIS_URL: redis.url,
  HOST_TTL_MS: "15000",
  SANDBOX_WARM_POOL: "0",
});

it("Redis restarted empty while a host pauses: its session's next call runs on it, in its workspace", async () => {
  const t = await seedBashTenant(f.h.call, "redis-hosts");
  const w2 = await worker("host2", engine2);
  const sid = (await f.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const wrote = await runTool(f.h.call, t.agentKey, sid, "Bash", { command: "echo kept > /workspace/f" });
  expect(wrote.status, JSON.stringify(wrote)).toBe("succeeded");
  const home = (await f.h.call("GET", `/v1/sessions/${sid}`, { key: t.agentKey })).body.hostId as string;
  await worker("host1", undefined);

  w2.proc.kill("SIGSTOP");
  await redis.kill();
  await redis.start();
  // Host 1's next beat finds the list empty and lists the pinned hosts again: host 2 is listed
  // before it beats itself (the window where "listed, no key" would read as lost).
  const probe = new Redis(redis.url);
  await pollUntil(
    () => probe.sismember(`${f.h.config.QUEUE_PREFIX}:hosts`, home),
    (n) => n === 1,
    {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: "host 1 to list host 2 again",
    },
  );
  // Submitted once the API has Redis again (503 until then: nothing stored).
  const sub = await pollUntil(
    () =>
      f.h.call("POST", `/v1/sessions/${sid}/calls`, {
        key: t.agentKey,
        body: { tool: "Bash", input: { command: "cat /workspace/f" } },
      }),
    (r) => r.status === 202,
    { timeoutMs: 20_000, intervalMs: 200, what: "a submit after the restart" },
  );
  const jid = sub.body.job.id as string;
  // Host 1 pulled the call and ran it (the bug), or the call went to host 2's queue.
  const forwarded = async () => (await probe.keys(`*calls-${home}*${jid}*`)).length > 0;
  await pollUntil(
    async () =>
      (await forwarded()) ||
      (await f.h.call("GET", `/v1/jobs/${jid}`, { key: t.agentKey })).body.job.status !== "queued",
    Boolean,
    { timeoutMs: 20_000, intervalMs: 100, what: "host 1 to pull the call" },
  );
  probe.disconnect();
  w2.proc.kill("SIGCONT");

  const job = await waitForJob(f.h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(job.hostId, JSON.stringify(job)).toBe(home);
  expect(jobText(job)).toBe("kept\n");
  const view = (await f.h.call("GET", `/v1/sessions/${sid}`, { key: t.agentKey })).body;
  expect(view.hostId).toBe(home);
  expect(view.workspaceLost).toBeUndefined();
}, 120_000);
