/**
 * A host frozen (SIGSTOP) under a call, declared lost, its session re-homed and the call taken
 * over on the other host, then resumed (attack27a): the resumed worker must not act on the call
 * any more. Two worker processes, each on its own Docker engine (the machine's, and a second
 * engine of this file's own, `scripts/cluster.sh engine-up` in its own directory: it is frozen
 * too, and stopped at the end). On Postgres (integration-pg) each worker has its own DATA_DIR.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { ChildService } from "../support/child-service.js";
import { apiWithChildWorkers } from "../support/child-workers.js";
import { seedBashTenant } from "../support/harness.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

const clusterDir = "/var/tmp/ts-zombie";
const engine = (verb: "engine-up" | "engine-down") =>
  execFileSync("bash", ["scripts/cluster.sh", verb], {
    stdio: "inherit",
    env: { ...process.env, CLUSTER_DIR: clusterDir },
    timeout: 180_000,
  });
engine("engine-up");
const image = readFileSync(join(clusterDir, "image"), "utf8").trim();
const engine2 = `unix://${clusterDir}/e2/docker.sock`;
const dockerd2 = Number(readFileSync(join(clusterDir, "e2", "docker.pid"), "utf8"));

const f = apiWithChildWorkers({
  env: { SANDBOX_IMAGE: image, HOST_TTL_MS: "3000", SANDBOX_DISK_QUOTA: "off", SANDBOX_WARM_POOL: "0" },
});
const workers: ChildService[] = [];

/** A worker on its own sandbox directory (and, on Postgres, its own DATA_DIR). */
async function worker(name: string, dockerHost: string | undefined): Promise<ChildService> {
  const dir = f.h.config.DATA_DIR;
  const own = f.h.env.DATABASE_URL ? { DATA_DIR: join(dir, name) } : {};
  if (own.DATA_DIR) mkdirSync(own.DATA_DIR, { recursive: true });
  const w = await f.spawn("worker", {
    ...own,
    SANDBOX_DIR: join(dir, `sb-${name}`),
    DOCKER_HOST: dockerHost,
  });
  workers.push(w);
  return w;
}

afterAll(() => {
  process.kill(dockerd2, "SIGCONT");
  for (const w of workers) w.proc.kill("SIGCONT");
  // This run's containers on the second engine (the harness reaps the first engine's), then it.
  const label = `label=toolshed.service=${f.h.config.SERVICE_ID}`;
  const ids = execFileSync("docker", ["-H", engine2, "ps", "-aq", "--filter", label]).toString().split("\n");
  const own = ids.filter(Boolean);
  if (own.length) execFileSync("docker", ["-H", engine2, "rm", "-f", ...own], { stdio: "ignore" });
  engine("engine-down");
});

it("a host frozen between its claim and its first sandbox operation, re-homed and run elsewhere, then resumed: the command ran once", async () => {
  const t = await seedBashTenant(f.h.call, "zombie");
  const w2 = await worker("host2", engine2);
  const sid = (await f.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  // Pinned to host 2 by a call that needs no sandbox: the session has no container yet.
  const task = await f.h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: { tool: "TaskCreate", input: { subject: "s", description: "d" } },
  });
  expect(task.body.job?.status, JSON.stringify(task.body)).toBe("succeeded");
  const w1 = await worker("host1", undefined);

  // Host 2's engine frozen: the call's claim lands, its container's creation hangs.
  process.kill(dockerd2, "SIGSTOP");
  const jid = (
    await f.h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command: "echo x >> /workspace/f; echo done" } },
    })
  ).body.job.id as string;
  const view = () => f.h.call("GET", `/v1/jobs/${jid}`, { key: t.agentKey }).then((r) => r.body.job);
  const claimed = await pollUntil(view, (j) => j.status === "running", {
    timeoutMs: 20_000,
    intervalMs: 20,
    what: "host 2's claim",
  });
  // The worker frozen with its request to the engine in flight; the engine goes on.
  w2.proc.kill("SIGSTOP");
  process.kill(dockerd2, "SIGCONT");
  expect(claimed.attempts).toHaveLength(1);
  expect(claimed.attempts[0].sandbox).toBeUndefined();

  // Host 2 is lost (its key lapses after 3 s): host 1 re-homes the session and runs the call.
  const done = await waitForJob(f.h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(done.status, JSON.stringify(done)).toBe("succeeded");
  expect(done.hostId).not.toBe(claimed.hostId);
  const hostSandbox = done.attempts[1].sandbox;
  expect(hostSandbox).toBeDefined();

  // Host 2 resumes: its run of the call is someone else's now.
  w2.proc.kill("SIGCONT");
  const zombieFile = join(f.h.config.DATA_DIR, "sb-host2", "workspaces", sid, "f");
  const refused = () => w2.lines.some((l) => l.includes("superseded"));
  await pollUntil(() => existsSync(zombieFile) || refused(), Boolean, {
    timeoutMs: 25_000,
    intervalMs: 100,
    what: "host 2's run to act or be refused",
  });
  expect(
    existsSync(zombieFile) ? readFileSync(zombieFile, "utf8") : "",
    "the command ran again on host 2",
  ).toBe("");
  const after = await view();
  expect(after.status).toBe("succeeded");
  expect(after.attempts).toHaveLength(2);
  // Host 1's attempt keeps its own sandbox (the resumed worker does not write over it).
  expect(after.attempts[1].sandbox).toBe(hostSandbox);
  expect(w1.proc.exitCode).toBeNull();
}, 120_000);
