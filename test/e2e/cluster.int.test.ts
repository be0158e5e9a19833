/**
 * The multi-host shape on one machine: two Docker engines (the machine's, and the second one
 * `scripts/cluster.sh engine-up` starts), one worker per engine, two API processes. Calls are
 * submitted alternately through both APIs; each ran exactly once, on its session's host, in
 * submission order. Then one worker is killed: its session's running call ends `interrupted`,
 * the call queued behind it and a new call are answered on the other host, the session is marked
 * `workspaceLost`, and nothing hangs. With TOOLSHED_TEST_DB=pg (the `integration-pg` project) the
 * processes share a Postgres database and each worker has its own DATA_DIR: no shared disk.
 *
 * Size: 20 sessions × 15 calls = 300 calls (the figure).
 */
// suite: serial — starts the second Docker engine at a fixed directory (/var/tmp/toolshed-cluster), which integration-pg's run of this file uses too
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ChildService } from "../support/child-service.js";
import { apiWithChildWorkers } from "../support/child-workers.js";
import { type Client, httpClient, seedBashTenant } from "../support/harness.js";
import { SseReader } from "../support/sse-reader.js";
import { waitForJob, waitForJobs } from "../support/wait-for-job.js";

const SESSIONS = 20;
const CALLS_PER_SESSION = 15;
const clusterDir = process.env.CLUSTER_DIR ?? "/var/tmp/toolshed-cluster";
const engine2 = `unix://${clusterDir}/e2/docker.sock`;

// The second engine (idempotent; loads the sandbox image into it by ID).
execFileSync("bash", ["scripts/cluster.sh", "engine-up"], { stdio: "inherit" });
const image = readFileSync(join(clusterDir, "image"), "utf8").trim();

const f = apiWithChildWorkers({
  env: {
    SANDBOX_IMAGE: image,
    HOST_TTL_MS: "3000",
    SANDBOX_DISK_QUOTA: "off",
    WORKER_CONCURRENCY: "8",
    SANDBOX_WARM_POOL: "2",
  },
});
let api2: ChildService;
const workers: ChildService[] = [];
let apis: Client[];

beforeAll(async () => {
  const dir = f.h.config.DATA_DIR;
  // On Postgres (TOOLSHED_TEST_DB=pg) each host keeps its own disk, as separate machines would;
  // on SQLite the processes must share the one file in DATA_DIR.
  const disk = (host: string) => {
    if (!f.h.env.DATABASE_URL) return {};
    mkdirSync(join(dir, host), { recursive: true });
    return { DATA_DIR: join(dir, host) };
  };
  workers.push(
    await f.spawn("worker", { ...disk("host1"), SANDBOX_DIR: join(dir, "sb1"), DOCKER_HOST: undefined }),
  );
  workers.push(
    await f.spawn("worker", { ...disk("host2"), SANDBOX_DIR: join(dir, "sb2"), DOCKER_HOST: engine2 }),
  );
  api2 = await f.spawn("api");
  apis = [f.h.call, httpClient(api2.url)];
}, 120_000);

afterAll(async () => {
  // The second engine's containers of this run (the harness reaps the first engine's).
  const ids = execFileSync("docker", [
    "-H",
    engine2,
    "ps",
    "-aq",
    "--filter",
    `label=toolshed.service=${f.h.config.SERVICE_ID}`,
  ])
    .toString()
    .split("\n")
    .filter(Boolean);
  if (ids.length) execFileSync("docker", ["-H", engine2, "rm", "-f", ...ids], { stdio: "ignore" });
});

let tenant: Awaited<ReturnType<typeof seedBashTenant>>;
const sessions: string[] = [];
const hostOf = new Map<string, string>();

it("300 calls through two APIs: each ran once, on its session's host, in submission order", async () => {
  tenant = await seedBashTenant(f.h.call);
  for (let i = 0; i < SESSIONS; i++) {
    const s = await apis[i % 2]!("POST", "/v1/sessions", { key: tenant.agentKey, body: {} });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    sessions.push(s.body.id);
  }
  // Per session in order (the order that must hold); sessions side by side; APIs alternating.
  let n = 0;
  const jobIds: string[][] = await Promise.all(
    sessions.map(async (sid) => {
      const ids: string[] = [];
      for (let c = 1; c <= CALLS_PER_SESSION; c++) {
        const res = await apis[n++ % 2]!("POST", `/v1/sessions/${sid}/calls`, {
          key: tenant.agentKey,
          body: { tool: "Bash", input: { command: `echo ${c} >> /workspace/log; echo ${c}` } },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        ids.push(res.body.job.id);
      }
      return ids;
    }),
  );
  const done = await waitForJobs(f.h.call, tenant.agentKey, jobIds.flat(), undefined, {
    timeoutMs: 150_000,
    intervalMs: 1000,
  });
  const byId = new Map(done.map((j) => [j.id, j]));
  for (const [i, sid] of sessions.entries()) {
    const view = (await apis[i % 2]!("GET", `/v1/sessions/${sid}`, { key: tenant.agentKey })).body;
    expect(view.hostId, JSON.stringify(view)).toMatch(/^h-[0-9a-f]{12}$/);
    hostOf.set(sid, view.hostId);
    // Exactly once and in order: the workspace log holds 1..15 once each, in submission order.
    const log = await apis[i % 2]!("POST", `/v1/sessions/${sid}/calls?wait=30`, {
      key: tenant.agentKey,
      body: { tool: "Bash", input: { command: "cat /workspace/log" } },
    });
    const text = log.body.job?.result?.content?.[0]?.text;
    for (const jid of jobIds[i]!) {
      const job = byId.get(jid)!;
      // One failure tells all: the whole job (its attempts, their outcomes), the session's host
      // and its workspace log (a second run of the command shows there).
      const lines = (w: ChildService) => w.lines.filter((l) => l.includes(jid));
      const all = JSON.stringify({
        job,
        sessionHost: view.hostId,
        log: text,
        workerLines: workers.map(lines),
      });
      expect(job.status, all).toBe("succeeded");
      expect(job.hostId, all).toBe(view.hostId);
      // One attempt, or more only where a BullMQ lock lapsed under load (JOB_LOCK_MS is 3 s here):
      // the same worker took the call over in the same executor, which re-attached (the log below
      // proves the command ran once). Never another host's take-over: no host was lost.
      const attempts: { outcome?: string; sandbox?: string }[] = job.attempts;
      for (const cut of attempts.slice(0, -1)) {
        expect(cut.outcome, all).toBe("taken again by the same worker");
        expect(cut.sandbox ?? attempts.at(-1)!.sandbox, all).toBe(attempts.at(-1)!.sandbox);
      }
    }
    const expected = Array.from({ length: CALLS_PER_SESSION }, (_, k) => `${k + 1}\n`).join("");
    expect(text, JSON.stringify(log.body)).toBe(expected);
  }
  // Both engines took sessions (placement: whichever worker pulled the session's first call).
  expect(new Set(hostOf.values()).size).toBe(2);
}, 200_000);

it("a killed worker: its running call ends interrupted, later calls are answered on the other host", async () => {
  // Which worker is which host: worker 2 runs on the second engine; its host id is in its log.
  const hostOfWorker = (w: ChildService) =>
    w.lines.map((l) => /"hostId":"(h-[0-9a-f]+)"/.exec(l)?.[1]).find(Boolean);
  const lostHost = hostOfWorker(workers[1]!)!;
  const survivor = hostOfWorker(workers[0]!)!;
  expect(lostHost).not.toBe(survivor);
  const victims = sessions.filter((s) => hostOf.get(s) === lostHost);
  expect(victims.length).toBeGreaterThan(0);
  const [first, second] = victims;

  const submit = (api: Client, sid: string, command: string) =>
    api("POST", `/v1/sessions/${sid}/calls`, {
      key: tenant.agentKey,
      body: { tool: "Bash", input: { command } },
    });
  const long = (await submit(apis[0]!, first!, "echo started; sleep 60; echo never")).body.job.id;
  const behind = (await submit(apis[1]!, first!, "echo after")).body.job.id;
  // Killed once the command demonstrably runs in the sandbox (its first output streamed), not
  // merely once claimed: a call killed before it reached the sandbox is rightly run again.
  const res = await fetch(`${f.h.url}/v1/jobs/${long}/events`, {
    headers: { authorization: `Bearer ${tenant.agentKey}` },
  });
  const events = new SseReader(res);
  for (;;) {
    const block = await events.next(30_000);
    if (block.event === "chunk" && block.data?.includes("started")) break;
  }
  await events.close();
  await workers[1]!.stop("SIGKILL");

  const interrupted = await waitForJob(f.h.call, tenant.agentKey, long, { timeoutMs: 60_000 });
  expect(interrupted.status, JSON.stringify(interrupted)).toBe("interrupted");
  const after = await waitForJob(f.h.call, tenant.agentKey, behind, { timeoutMs: 60_000 });
  expect(after.status, JSON.stringify(after)).toBe("succeeded");
  expect(after.hostId).toBe(survivor);

  // A session of the lost host that had nothing running: its next call is answered too.
  if (second) {
    const fresh = (await submit(apis[1]!, second, "cat /workspace/log 2>/dev/null | wc -l")).body.job.id;
    const job = await waitForJob(f.h.call, tenant.agentKey, fresh, { timeoutMs: 60_000 });
    expect(job.status, JSON.stringify(job)).toBe("succeeded");
    // Re-homed on the other engine: the old workspace is not there.
    expect(job.result?.content[0]?.text).toBe("0\n");
  }
  for (const sid of [first!, ...(second ? [second] : [])]) {
    const view = (await apis[0]!("GET", `/v1/sessions/${sid}`, { key: tenant.agentKey })).body;
    expect(view.hostId).toBe(survivor);
    expect(view.workspaceLost).toBe(true);
  }
  // The survivor's sessions were not touched.
  const kept = sessions.find((s) => hostOf.get(s) === survivor)!;
  const keptView = (await apis[0]!("GET", `/v1/sessions/${kept}`, { key: tenant.agentKey })).body;
  expect(keptView.workspaceLost).toBeUndefined();
}, 150_000);
