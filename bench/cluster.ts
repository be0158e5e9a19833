/**
 * `npm run bench -- cluster [sessions] [callsPerSession]`: the multi-host shape on this machine.
 * An API in this process, workers as child processes, one per Docker engine (the second engine
 * is the one `scripts/cluster.sh engine-up` starts). Prints:
 *  - warm-pool cold start: session create → first result (HTTP, wait), next to a raw hardened
 *    `docker run --rm … true` p50 measured in the same run;
 *  - calls/s with one worker, then with two (a second worker on the second engine), over fresh
 *    sessions each time (placement spreads them), and the ratio.
 * The processes share what hosts share: a Postgres database (a fresh one per run, from
 * `scripts/cluster.sh database`, dropped at the end), Redis and the secret key; each has its own
 * DATA_DIR. `BENCH_DB=sqlite` runs them on one SQLite file in a shared DATA_DIR instead (one
 * machine only).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import Dockerode from "dockerode";
import { startService } from "../src/cli/compose.js";
import { loadConfig } from "../src/config.js";
import { fmt, measureRawDockerRun, summarize } from "./sandbox-latency.js";
import { benchTenant, jsonClient, removedOnSignal, tearDown } from "./support.js";

const ADMIN = `bench-admin-${randomBytes(8).toString("hex")}`;
const clusterDir = process.env.CLUSTER_DIR ?? "/var/tmp/toolshed-cluster";

/** A fresh database on the cluster's Postgres (BENCH_DB unset or `pg`), or none (`sqlite`). */
function benchDatabase(): { env: Record<string, string>; drop(): void } | undefined {
  const kind = process.env.BENCH_DB ?? "pg";
  if (kind === "sqlite") return undefined;
  if (kind !== "pg") throw new Error(`BENCH_DB=${kind}: use pg (default) or sqlite`);
  const name = `toolshed_bench_${randomBytes(4).toString("hex")}`;
  const url = execFileSync("bash", ["scripts/cluster.sh", "database", name], { encoding: "utf8" }).trim();
  return {
    env: { DATABASE_URL: url, TOOLSHED_SECRET_KEY: randomBytes(32).toString("base64") },
    drop: () => execFileSync("bash", ["scripts/cluster.sh", "drop-database", name], { stdio: "inherit" }),
  };
}

/** `toolshed worker` as a child; resolves once it listens. */
async function startWorker(env: Record<string, string | undefined>): Promise<ChildProcess> {
  const childEnv = { ...process.env, ...env };
  for (const k of Object.keys(childEnv)) if (childEnv[k] === undefined) delete childEnv[k];
  const proc = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "worker"], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    const tail: string[] = [];
    const onLine = (line: string) => {
      tail.push(line);
      if (line.includes('"msg":"worker listening"')) resolve();
    };
    createInterface({ input: proc.stdout! }).on("line", onLine);
    createInterface({ input: proc.stderr! }).on("line", onLine);
    proc.once("exit", (code) => reject(new Error(`worker exited (${code}):\n${tail.slice(-20).join("\n")}`)));
  });
  return proc;
}

export async function run(args: string[]): Promise<void> {
  const sessions = Number(args[0] ?? 20);
  const perSession = Number(args[1] ?? 10);
  execFileSync("bash", ["scripts/cluster.sh", "engine-up"], { stdio: "inherit" });
  const image = readFileSync(join(clusterDir, "image"), "utf8").trim();
  const engine2 = `unix://${clusterDir}/e2/docker.sock`;
  const dataDir = mkdtempSync(join(tmpdir(), "tsc-"));
  const database = benchDatabase();
  // Each process its own disk on Postgres (as on separate hosts); one shared file on SQLite.
  const disk = (name: string) => {
    if (!database) return { DATA_DIR: dataDir };
    mkdirSync(join(dataDir, name), { recursive: true });
    return { DATA_DIR: join(dataDir, name) };
  };
  const env = {
    PORT: "0",
    WORKER_PORT: "0",
    ...disk("api"),
    ...database?.env,
    TOOLSHED_ADMIN_KEY: ADMIN,
    LOG_LEVEL: "info",
    QUEUE_PREFIX: `bench-${randomBytes(4).toString("hex")}`,
    SERVICE_ID: `toolshed-bench-${randomBytes(3).toString("hex")}`,
    SANDBOX_IMAGE: image,
    WORKER_CONCURRENCY: "32",
    SANDBOX_WARM_POOL: "2",
  };
  const config = loadConfig({ ...env, LOG_LEVEL: "warn" });
  // Both engines hold the run's containers (the second's sessions and warm pool).
  const engines = [new Dockerode(), new Dockerode({ socketPath: `${clusterDir}/e2/docker.sock` })];
  removedOnSignal(config, dataDir, engines);
  const api = await startService(config, "api").catch((err) => {
    database?.drop();
    throw err;
  });
  const workers: ChildProcess[] = [];
  const base = api.url!;
  const req = jsonClient(base);
  try {
    workers.push(
      await startWorker({ ...env, ...disk("w1"), SANDBOX_DIR: join(dataDir, "sb1"), DOCKER_HOST: undefined }),
    );
    const { agent, newSession } = await benchTenant(req, ADMIN, ["Bash"]);
    let failures = 0;
    const call = async (sid: string, command: string) => {
      const { job } = await req("POST", `/v1/sessions/${sid}/calls?wait=60`, agent, {
        tool: "Bash",
        input: { command },
      });
      if (job.status !== "succeeded") failures++;
    };
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

    // Warm-pool cold start: one new session at a time, the pool refilled in between.
    await call(await newSession(), "true"); // first placement, listings warmed
    const coldSamples: number[] = [];
    for (let i = 0; i < 8; i++) {
      await pause(2500);
      const t0 = performance.now();
      await call(await newSession(), "true");
      coldSamples.push(performance.now() - t0);
    }
    const cold = summarize(coldSamples);
    const rawRun = await measureRawDockerRun(new Dockerode(), image, 8, join(dataDir, "raw"));
    console.log(`warm-pool cold start (create → first result)  ${fmt(cold)}`);
    console.log(`raw hardened docker run … true               ${fmt(rawRun)}`);
    console.log(`cold start p50 / raw docker run p50 = ${(cold.p50 / rawRun.p50).toFixed(2)}`);

    const throughput = async (label: string): Promise<number> => {
      const sids = await Promise.all(Array.from({ length: sessions }, newSession));
      // Placement and container start first: the figure is calls, not container starts.
      await Promise.all(sids.map((s) => call(s, "true")));
      const t0 = performance.now();
      await Promise.all(
        sids.map(async (s) => {
          for (let i = 0; i < perSession; i++) await call(s, "echo hi");
        }),
      );
      const rate = (sessions * perSession) / ((performance.now() - t0) / 1000);
      console.log(`${label}: ${sessions} sessions x ${perSession} Bash echo = ${rate.toFixed(1)} calls/s`);
      return rate;
    };
    const one = await throughput("one worker (engine 1)");
    workers.push(
      await startWorker({ ...env, ...disk("w2"), SANDBOX_DIR: join(dataDir, "sb2"), DOCKER_HOST: engine2 }),
    );
    await pause(1000);
    const two = await throughput("two workers (engines 1 and 2)");
    console.log(`calls/s two workers / one worker = ${(two / one).toFixed(2)}`);
    console.log(`failed calls during the run: ${failures}`);
  } finally {
    for (const w of workers) {
      const exited = new Promise((r) => w.once("exit", r));
      w.kill("SIGTERM");
      await exited;
    }
    await tearDown(api, config, dataDir, engines);
    database?.drop();
  }
}
