/**
 * `npm run bench -- calls [n]`: the service's latency over HTTP next to its baselines measured
 * in the same run (bare HTTP round trip, the executor, a raw dockerode exec of `cat` in the same
 * container), throughput with 20 and 50 concurrent sessions, cold session start next to a raw
 * hardened `docker run`, and the process RSS with 0 and 100 idle sessions.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { startService } from "../src/cli/compose.js";
import { loadConfig } from "../src/config.js";
import { sessionPaths } from "../src/sandbox/session-paths.js";
import {
  measureExecutor,
  measureRawDockerExec,
  measureRawDockerRun,
  type Timing,
} from "./sandbox-latency.js";
import { tearDown } from "./support.js";

const ADMIN = `bench-admin-${randomBytes(8).toString("hex")}`;

function summarize(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
  return { n: s.length, p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}
const fmt = (t: Timing) => `p50 ${t.p50.toFixed(2)} ms  p99 ${t.p99.toFixed(2)} ms  (n=${t.n})`;
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

async function timeEach(n: number, once: () => Promise<void>): Promise<Timing> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await once();
    samples.push(performance.now() - t0);
  }
  return summarize(samples);
}

async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
    }),
  );
}

export async function run(args: string[]): Promise<void> {
  const n = Number(args[0] ?? 200);
  const idleCount = Number(args[1] ?? 100);
  const dataDir = mkdtempSync(join(tmpdir(), "tsb-"));
  const config = loadConfig({
    PORT: "0",
    DATA_DIR: dataDir,
    TOOLSHED_ADMIN_KEY: ADMIN,
    LOG_LEVEL: "warn",
    QUEUE_PREFIX: `bench-${randomBytes(4).toString("hex")}`,
    SERVICE_ID: `toolshed-bench-${randomBytes(3).toString("hex")}`,
    WORKER_CONCURRENCY: "64",
  });
  const service = await startService(config, "serve");
  const base = service.url!;
  const req = async (method: string, path: string, key?: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // biome-ignore lint/suspicious/noExplicitAny: bench reads loosely typed JSON bodies
    const json = (await res.json()) as Record<string, any>;
    if (res.status >= 300 && res.status !== 202)
      throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json;
  };
  try {
    const tenant = await req("POST", "/v1/tenants", ADMIN, { name: "bench" });
    const agent = (await req("POST", `/v1/tenants/${tenant.id}/keys`, ADMIN, { role: "agent" }))
      .key as string;
    await req("PUT", `/v1/tenants/${tenant.id}/rules`, ADMIN, { allow: ["Read", "Bash"], deny: [], ask: [] });
    const newSession = async () => (await req("POST", "/v1/sessions", agent, {})).id as string;
    let failures = 0;
    let lastFailure = "";
    // A failed call is counted and reported, not fatal: the figures say how many there were.
    const call = async (sid: string, tool: string, input: object) => {
      const { job } = await req("POST", `/v1/sessions/${sid}/calls?wait=60`, agent, { tool, input });
      if (job.status !== "succeeded") {
        failures++;
        lastFailure = `${tool} ended ${job.status}: ${JSON.stringify(job.result).slice(0, 300)}`;
      }
    };

    const rssIdle0 = process.memoryUsage().rss; // the service (in this process) with 0 sessions
    const sid = await newSession();
    await call(sid, "Bash", { command: "head -c 4096 /dev/zero | tr '\\0' x > /workspace/bench-4k" });
    for (let i = 0; i < 20; i++) await call(sid, "Read", { file_path: "/workspace/bench-4k" });

    const health = await timeEach(n, async () => void (await fetch(`${base}/healthz`)).arrayBuffer());
    const read = await timeEach(n, () => call(sid, "Read", { file_path: "/workspace/bench-4k" }));
    const echo = await timeEach(n, () => call(sid, "Bash", { command: "echo hi" }));
    const sandbox = await service.deps.sandboxes.acquire({ sessionId: sid, tenantId: tenant.id });
    const executor = await measureExecutor(sandbox, n);
    const docker = new Dockerode();
    const container = docker.getContainer(
      sessionPaths(join(dataDir, "sb"), config.SERVICE_ID, sid).containerName,
    );
    const rawExec = await measureRawDockerExec(container, Math.min(n, 100));
    console.log(`bare HTTP GET /healthz            ${fmt(health)}`);
    console.log(`warm Read 4 KiB (HTTP, wait)      ${fmt(read)}`);
    console.log(`warm Bash echo (HTTP, wait)       ${fmt(echo)}`);
    console.log(`executor cat 4 KiB (in-process)   ${fmt(executor)}`);
    console.log(`raw dockerode exec cat 4 KiB      ${fmt(rawExec)}`);
    console.log(`Read p50 / raw exec p50 = ${(read.p50 / rawExec.p50).toFixed(2)}`);

    const idle = await Promise.all(Array.from({ length: idleCount }, newSession));
    await pool(idle, 10, (s) => call(s, "Bash", { command: "true" }));
    const rssIdleN = process.memoryUsage().rss;
    for (const width of [20, 50]) {
      const sids = await Promise.all(Array.from({ length: width }, newSession));
      await pool(sids, 10, (s) => call(s, "Bash", { command: "true" }));
      const perSession = 10;
      const t0 = performance.now();
      await Promise.all(
        sids.map(async (s) => {
          for (let i = 0; i < perSession; i++) await call(s, "Bash", { command: "echo hi" });
        }),
      );
      const secs = (performance.now() - t0) / 1000;
      console.log(
        `throughput ${width} sessions x ${perSession} Bash echo: ${((width * perSession) / secs).toFixed(1)} calls/s`,
      );
    }

    const cold = await timeEach(5, async () => call(await newSession(), "Bash", { command: "true" }));
    const rawRun = await measureRawDockerRun(docker, config.SANDBOX_IMAGE, 5, join(dataDir, "raw"));
    console.log(`cold session first call (HTTP)    ${fmt(cold)}`);
    console.log(`raw hardened docker run … true    ${fmt(rawRun)}`);

    console.log(`failed calls during the run: ${failures}${failures ? ` (last: ${lastFailure})` : ""}`);
    console.log(
      `process RSS (service + bench client): before any session ${mib(rssIdle0)}; with ${idleCount} more idle sessions (containers up) ${mib(rssIdleN)}`,
    );
  } finally {
    await tearDown(service, config, dataDir);
  }
}
