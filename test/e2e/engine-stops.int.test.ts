/**
 * The Docker engine stops while calls run (the second engine of `scripts/cluster.sh engine-up`,
 * in a directory of this test's own: the machine's engine and the cluster test's are left alone).
 * A serving process whose sandboxes are on that engine has a Bash call running, one queued behind
 * it, and another session's warm container. The engine goes down (its containers stop with it):
 *  - the running call ends `interrupted` (it may have partly run; never a success, never run
 *    twice), and the call queued behind it ends within its retries with a message that names the
 *    Docker engine, never a hang;
 *  - /readyz names docker, a submit is refused 503 (nothing stored), calls that need no sandbox
 *    still run, the process keeps serving;
 *  - once the engine is back (its containers stopped), the next call of each session runs in a
 *    new container on the same workspace, without an operator.
 * And a service stopped while the engine is down stops, the database last.
 */
// suite: serial — starts and stops a second Docker engine (dockerd, its image loaded) at a fixed directory, three times
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import Dockerode from "dockerode";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningService } from "../../src/cli/compose.js";
import { DockerSandboxProvider } from "../../src/sandbox/docker-provider.js";
import { type ChildService, startChild } from "../support/child-service.js";
import { type Client, type Harness, httpClient, seedBashTenant, startHarness } from "../support/harness.js";
import { SseReader } from "../support/sse-reader.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

const clusterDir = "/var/tmp/ts-ops24";
const socketPath = join(clusterDir, "e2", "docker.sock");
const engine = (verb: "engine-up" | "engine-down") =>
  execFileSync("bash", ["scripts/cluster.sh", verb], {
    stdio: "inherit",
    env: { ...process.env, CLUSTER_DIR: clusterDir },
    timeout: 180_000,
  });

let h: Harness;
let image: string;
const providers: DockerSandboxProvider[] = [];
const children: ChildService[] = [];
let proxy: Server | undefined;

/** A worker process of its own (the service as deployed) whose engine is at `dockerSocket`. */
async function workerOn(name: string, dockerSocket: string, env: Record<string, string> = {}) {
  const child = await startChild("worker", h.env, {
    DOCKER_HOST: `unix://${dockerSocket}`,
    SANDBOX_DIR: join(h.config.DATA_DIR, name),
    SANDBOX_IMAGE: image,
    SANDBOX_DISK_QUOTA: "off",
    ...env,
  });
  children.push(child);
  return child;
}

/** Stops the process (SIGTERM); the parts it stopped, in order, from its last line. */
async function stopped(child: ChildService): Promise<string[]> {
  await child.stop("SIGTERM");
  expect(child.proc.exitCode, child.lines.slice(-20).join("\n")).toBe(0);
  const line = child.lines.find((l) => l.includes('"msg":"stopped"'));
  expect(line, child.lines.slice(-20).join("\n")).toBeDefined();
  return JSON.parse(line!).parts;
}

/** A session with a running container and a file in its workspace. */
async function warmSession(call: Client, key: string): Promise<string> {
  const sid = (await call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
  const r = await call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
    key,
    body: { tool: "Bash", input: { command: "echo warm > /workspace/f" } },
  });
  expect(r.body.job?.status, JSON.stringify(r.body)).toBe("succeeded");
  return sid;
}

/** A serving process whose sandboxes are on the second engine. */
async function serveOnEngine(name: string): Promise<{ svc: RunningService; call: Client }> {
  const dir = join(h.config.DATA_DIR, name);
  mkdirSync(dir, { recursive: true });
  const provider = new DockerSandboxProvider({
    dataDir: dir,
    serviceId: h.config.SERVICE_ID,
    image,
    limits: { memoryBytes: 256 * 1024 * 1024, pids: 64, nanoCpus: 1e9 },
    idleStopMs: 600_000,
    workspaceQuota: "off",
    docker: new Dockerode({ socketPath }),
  });
  providers.push(provider);
  const svc = await h.start("serve", { sandboxes: provider });
  return { svc, call: httpClient(svc.url!) };
}

beforeAll(async () => {
  engine("engine-up");
  image = readFileSync(join(clusterDir, "image"), "utf8").trim();
  h = await startHarness({ mode: "api" });
}, 240_000);

afterAll(async () => {
  for (const c of children) await c.stop("SIGKILL");
  const p = proxy;
  if (p) await new Promise((r) => p.close(r));
  engine("engine-up");
  for (const p of providers) await p.reapOrphans(new Set()).catch(() => undefined);
  for (const p of providers) await p.close().catch(() => undefined);
  await h?.stop();
  engine("engine-down");
}, 240_000);

it("the engine stops under a running, a queued and a warm call; back, the sessions work again", async () => {
  const { svc, call } = await serveOnEngine("e1");
  const t = await seedBashTenant(call);
  const key = t.agentKey;
  const submit = (sid: string, tool: string, input: unknown, wait = "") =>
    call("POST", `/v1/sessions/${sid}/calls${wait}`, { key, body: { tool, input } });
  const session = async () => (await call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
  const a = await session();
  const b = await session();
  // Both sessions have their containers up and a file in their workspaces.
  for (const sid of [a, b]) {
    const r = await submit(sid, "Bash", { command: `echo kept-${sid} > /workspace/f` }, "?wait=60");
    expect(r.body.job?.status, JSON.stringify(r.body)).toBe("succeeded");
  }

  const long = (await submit(a, "Bash", { command: "echo started; sleep 60; echo never >> /workspace/f" }))
    .body.job.id as string;
  const behind = (await submit(a, "Bash", { command: "echo after >> /workspace/f" })).body.job.id as string;
  const res = await fetch(`${h.url}/v1/jobs/${long}/events`, { headers: { authorization: `Bearer ${key}` } });
  const events = new SseReader(res);
  for (;;) {
    const block = await events.next(30_000);
    if (block.event === "chunk" && block.data?.includes("started")) break;
  }
  await events.close();

  engine("engine-down");
  // A warm Read of the other session, its container gone with the engine: refused at submit
  // (the engine is known down), or run and failed; never a success, never a 500.
  const read = await submit(b, "Read", { file_path: "/workspace/f" }, "?wait=60");
  if (read.status === 503) expect(read.body.error.message).toContain("Docker engine");
  else expect(read.body.job?.status, JSON.stringify(read.body)).toBe("failed");

  // The running call may have partly run: interrupted, and said so; not run again.
  const interrupted = await waitForJob(call, key, long, { timeoutMs: 90_000 });
  expect(interrupted.status, JSON.stringify(interrupted)).toBe("interrupted");
  const text = interrupted.result.content[0].text as string;
  expect(text).toContain("it may have partly run");
  expect(text).toContain("the Docker engine is unreachable");
  // The call queued behind it never reached a sandbox: failed, saying it did not run.
  const after = await waitForJob(call, key, behind, { timeoutMs: 90_000 });
  expect(after.status, JSON.stringify(after)).toBe("failed");
  expect(after.result.content[0].text).toMatch(/Docker engine is unreachable.*the call did not run/);

  const ready = await call("GET", "/readyz");
  expect(ready.status).toBe(503);
  expect(ready.body.checks.docker).toEqual({ ok: false, error: "unreachable" });
  const refused = await submit(a, "Bash", { command: "echo refused" });
  expect(refused.status, JSON.stringify(refused.body)).toBe(503);
  expect(refused.body.error.message).toContain("Docker engine");

  // Back (its containers stopped with it): each session's next call runs in a new container on
  // the same workspace (so not `workspaceLost`), without an operator.
  engine("engine-up");
  await pollUntil(
    () => call("GET", "/readyz"),
    (r) => r.status === 200,
    { timeoutMs: 30_000, what: "/readyz ready" },
  );
  for (const sid of [a, b]) {
    const r = await submit(sid, "Bash", { command: "cat /workspace/f" }, "?wait=60");
    expect(r.body.job?.status, JSON.stringify(r.body)).toBe("succeeded");
    // Neither the interrupted call's rest nor the queued call ran.
    expect(r.body.job.result.content[0].text).toBe(`kept-${sid}\n`);
    const view = (await call("GET", `/v1/sessions/${sid}`, { key })).body;
    expect(view.workspaceLost, JSON.stringify(view)).toBeUndefined();
  }
  await svc.stop();
}, 300_000);

it("a worker stopped while its engine is down stops, the database last", async () => {
  engine("engine-up");
  const worker = await workerOn("w2", socketPath);
  const t = await seedBashTenant(h.call);
  await warmSession(h.call, t.agentKey);
  engine("engine-down");
  const parts = await stopped(worker);
  expect(parts).toContain("sandboxes");
  expect(parts.at(-1)).toBe("database");
}, 180_000);

it("a stalled engine: a call's start gives up, the worker's stop ends", async () => {
  engine("engine-up");
  // The engine's answers pass through here: delayed, or held (a stalled engine).
  const mode = { delayMs: 0, stall: false };
  const proxyPath = join(h.config.DATA_DIR, "px.sock");
  proxy = createServer((client: Socket) => {
    const upstream = connect(socketPath);
    client.pipe(upstream);
    upstream.on("data", (chunk) => {
      if (mode.stall) return;
      setTimeout(() => client.write(chunk), mode.delayMs);
    });
    upstream.on("end", () => setTimeout(() => client.end(), mode.delayMs));
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close);
  });
  await new Promise<void>((r) => proxy!.listen(proxyPath, r));
  // ENGINE_WAIT_MS: the only host's engine stalls; its call is taken after 1 s rather than 10.
  const worker = await workerOn("w4", proxyPath, { DOCKER_TIMEOUT_MS: "2000", ENGINE_WAIT_MS: "1000" });
  const t = await seedBashTenant(h.call);
  const key = t.agentKey;

  // Slow answers (each delayed): the container starts late, and the call's own timeout holds.
  mode.delayMs = 300;
  const sid = (await h.call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
  const slow = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
    key,
    body: { tool: "Bash", input: { command: "sleep 30", timeout: 2000 } },
  });
  expect(slow.body.job?.status, JSON.stringify(slow.body)).toBe("failed");
  expect(slow.body.job.result.content[0].text).toContain("Command timed out after 2000ms");

  // No answers at all: a new session's container never starts; its call fails, it is not held.
  mode.stall = true;
  const fresh = (await h.call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
  const job = (
    await h.call("POST", `/v1/sessions/${fresh}/calls`, {
      key,
      body: { tool: "Bash", input: { command: "echo hi" } },
    })
  ).body.job.id as string;
  const given = await waitForJob(h.call, key, job, { timeoutMs: 60_000 });
  expect(given.status, JSON.stringify(given)).toBe("failed");
  expect(given.result.content[0].text).toContain("the call did not run");

  // Stopped with the engine still stalled (a live container to stop): the stop ends.
  const parts = await stopped(worker);
  expect(parts.at(-1)).toBe("database");
  mode.stall = false;
}, 180_000);

it("a worker whose engine is down takes no new session: the host whose engine answers does", async () => {
  engine("engine-up");
  const dead = await workerOn("w5", socketPath);
  // On the machine's engine (the harness's image and settings).
  const live = await startChild("worker", h.env, { SANDBOX_DIR: join(h.config.DATA_DIR, "w6") });
  children.push(live);
  engine("engine-down");
  const t = await seedBashTenant(h.call);
  const key = t.agentKey;
  const hosts = new Set<string>();
  for (let i = 0; i < 6; i++) {
    const sid = (await h.call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
    const r = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
      key,
      body: { tool: "Bash", input: { command: "echo placed" } },
    });
    expect(r.body.job?.status, JSON.stringify(r.body)).toBe("succeeded");
    hosts.add(r.body.job.hostId);
  }
  expect(hosts.size).toBe(1);
  await live.stop();
  await dead.stop();
}, 180_000);
