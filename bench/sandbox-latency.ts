/**
 * Sandbox latency: a warm call through the in-container executor against a raw `docker exec`
 * (create + start + collect) of the same `cat` in the same container, and a cold `acquire()`
 * against a raw hardened `docker run --rm … true`. `npm run bench -- sandbox [n]`.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { buildContainerSpec } from "../src/sandbox/container-spec.js";
import { DockerSandboxProvider } from "../src/sandbox/docker-provider.js";
import { DEFAULT_UID_BASE, identitiesFrom, type Sandbox } from "../src/sandbox/sandbox.js";
import { sessionPaths } from "../src/sandbox/session-paths.js";

/** Latency summary in milliseconds. */
export interface Timing {
  n: number;
  p50: number;
  p99: number;
  mean: number;
}

/** p50, p99 and mean of a run's samples (ms). */
export function summarize(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), mean };
}

export async function timeEach(n: number, once: () => Promise<void>): Promise<Timing> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

/** `n` raw dockerode execs (create + start + collect output) of `cat <file>` in `container`. */
export function measureRawDockerExec(
  container: Dockerode.Container,
  n: number,
  file = "/workspace/bench-4k",
): Promise<Timing> {
  return timeEach(n, async () => {
    const exec = await container.exec({ Cmd: ["cat", file], AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    await new Promise<void>((resolve, reject) => {
      stream.on("data", () => {});
      stream.once("end", resolve);
      stream.once("error", reject);
    });
  });
}

/** `n` warm `exec`s of `cat <file>` through the sandbox's executor. */
export function measureExecutor(sandbox: Sandbox, n: number, file = "/workspace/bench-4k"): Promise<Timing> {
  return timeEach(n, async () => {
    const r = await sandbox.exec({ argv: ["cat", file], timeoutMs: 10_000, maxOutputBytes: 1 << 20 });
    if (r.exitCode !== 0) throw new Error(`cat failed: ${r.stderr}`);
  });
}

/** `n` raw hardened `docker run --rm <image> true`: create, start, wait, remove. */
export async function measureRawDockerRun(
  docker: Dockerode,
  image: string,
  n: number,
  dataDir: string,
): Promise<Timing> {
  const serviceId = `bench-raw-${randomBytes(3).toString("hex")}`;
  const dirs = sessionPaths(dataDir, serviceId, "raw");
  await mkdir(dirs.workspaceDir, { recursive: true });
  await mkdir(dirs.runDir, { recursive: true });
  let i = 0;
  return timeEach(n, async () => {
    const spec = buildContainerSpec({
      name: `${dirs.containerName}-${i++}`,
      image,
      serviceId,
      sessionId: "raw",
      tenantId: "bench",
      workspaceHostDir: dirs.workspaceDir,
      runHostDir: dirs.runDir,
      executorHostDir: dirs.runDir,
      limits: { memoryBytes: 512 << 20, pids: 256, nanoCpus: 1e9 },
      identities: identitiesFrom(DEFAULT_UID_BASE),
    });
    const c = await docker.createContainer({ ...spec, Cmd: ["true"] });
    await c.start();
    await c.wait();
    await c.remove({ force: true });
  });
}

export const fmt = (t: Timing) => `p50 ${t.p50.toFixed(2)} ms  p99 ${t.p99.toFixed(2)} ms  (n=${t.n})`;

/** Prints the figures; `args[0]` is the number of warm samples (default 300). */
export async function run(args: string[]): Promise<void> {
  const n = Number(args[0] ?? 300);
  const image = args[1] ?? "toolshed-sandbox:latest";
  const docker = new Dockerode();
  const dataDir = await mkdtemp(join(tmpdir(), "tsbench-"));
  const serviceId = `bench-${randomBytes(3).toString("hex")}`;
  const limits = { memoryBytes: 512 << 20, pids: 256, nanoCpus: 1e9 };
  const provider = new DockerSandboxProvider({
    docker,
    dataDir,
    serviceId,
    image,
    limits,
    idleStopMs: 600_000,
  });
  try {
    const sb = await provider.acquire({ sessionId: "warm", tenantId: "bench" });
    await sb.writeFile("/workspace/bench-4k", Buffer.alloc(4096, "x"));
    const container = docker.getContainer(sessionPaths(dataDir, serviceId, "warm").containerName);
    await measureExecutor(sb, 20);
    await measureRawDockerExec(container, 5);
    const raw = await measureRawDockerExec(container, Math.min(n, 100));
    const ours = await measureExecutor(sb, n);
    console.log(`warm cat 4 KiB  raw docker exec  ${fmt(raw)}`);
    console.log(`warm cat 4 KiB  executor         ${fmt(ours)}`);
    console.log(`warm p50 ratio executor/raw = ${(ours.p50 / raw.p50).toFixed(3)} (aim ≤ 0.25)`);

    let k = 0;
    const cold = await timeEach(5, async () => {
      await provider.acquire({ sessionId: `cold${k++}`, tenantId: "bench" });
    });
    const rawRun = await measureRawDockerRun(docker, image, 5, dataDir);
    console.log(`cold acquire() (create+start+executor ready)  ${fmt(cold)}`);
    console.log(`raw hardened docker run --rm … true           ${fmt(rawRun)}`);

    // Needs --expose-gc (NODE_OPTIONS=--expose-gc) to be more than noise.
    const gc = (globalThis as { gc?: () => void }).gc;
    const settledMemory = () => {
      gc?.();
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };
    const idle = 30;
    // A few sessions first, so code warm-up is not counted as per-session state.
    for (let i = 0; i < 5; i++) await provider.acquire({ sessionId: `warmup${i}`, tenantId: "bench" });
    const before = settledMemory();
    for (let i = 0; i < idle; i++) await provider.acquire({ sessionId: `idle${i}`, tenantId: "bench" });
    const per = (settledMemory() - before) / idle;
    const note = gc ? "" : " (no --expose-gc: noisy)";
    console.log(
      `host memory per running idle session ≈ ${(per / 1024).toFixed(1)} KiB heap+external, n=${idle}${note}`,
    );
  } finally {
    await provider.close();
    const left = await docker.listContainers({
      all: true,
      filters: { label: [`toolshed.service=${serviceId}`] },
    });
    await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run(process.argv.slice(2));
