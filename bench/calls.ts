/**
 * `npm run bench -- calls [n=200] [--idle N]`: one warm call's whole path over HTTP next to each
 * of its floors, measured in the same run: the bare HTTP round trip, the executor's protocol
 * (`stat`), its `readFile`, a process start inside the container (`true`, `bash -c "echo hi"`) and a
 * raw dockerode exec in the same container; then throughput with 20 and 50 sessions next to raw
 * `docker exec` at the same concurrency (the HTTP load from this thread, then from a client on its
 * own thread, bench/load-thread.ts, with fetch and with node:http, then from a raw-socket load
 * generator in its own process, bench/load-raw.mjs), each sessions' first calls and again, sustained,
 * after K more calls per session (`--steady K`, default 200; 0: not); the ratios the latency work aims at,
 * with the single session's HTTP rows and ratios also measured from a client on its own thread; a cold session start
 * next to a raw hardened `docker run`; and the same table under gVisor when runsc is registered.
 * `--throughput-only [--widths 50] [--steady K] [--profile F]`: the throughput part alone (runc),
 * with the machine's CPU per call split by process around its node:http and raw runs
 * (bench/proc-split.ts); a CPU profile of the service's thread during the node:http run.
 * `--quick`: the single-session table and its ratios alone (runc): no throughput, no cold start,
 * no gVisor table.
 * `--warm K` (default 20): unmeasured calls of each kind on the single
 * session before its table (Read, Bash, the executor's `true` and `bash -c`), so that its rows are a
 * warm session's, as the raw exec's Go daemon always is: a young executor pays about twice its
 * warm share of a spawn over its first 100-200 (NOTES-spawn21.md), the service's own paths likewise.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { startService } from "../src/cli/compose.js";
import { runtimeRegistered } from "../src/sandbox/sandbox-runtime.js";
import { sessionPaths } from "../src/sandbox/session-paths.js";
import { profiled } from "./call-cost.js";
import { runLoad } from "./load-thread.js";
import { snapProcs, splitReport } from "./proc-split.js";
import {
  fmt,
  measureRawDockerExec,
  measureRawDockerRun,
  summarize,
  type Timing,
  timeEach,
} from "./sandbox-latency.js";
import { benchConfig, benchTenant, jsonClient, tearDown } from "./support.js";

/** How many more spawns make a session's executor "steady" in the bench's second spawn row. */
const STEADY_AFTER = 3000;

const ADMIN = `bench-admin-${randomBytes(8).toString("hex")}`;
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
    }),
  );
}

interface Options {
  n: number;
  runtime: "runc" | "runsc";
  throughput: boolean;
  /** `--throughput-only`: only the throughput part (runc), without the single-session table. */
  only: boolean;
  /** `--widths 50[,20]`: the session counts of the throughput part. */
  widths: number[];
  /** `--steady K`: node:http and raw rows again after K more (unmeasured) calls per session. */
  steady: number;
  /** `--profile <file>`: a CPU profile of the service's thread during the node:http run. */
  profile?: string;
  idle: number;
  /** `--warm K`: unmeasured calls of each kind on the single session before its table. */
  warm: number;
}

export async function run(args: string[]): Promise<void> {
  const valued = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const idle = Number(valued("--idle") ?? 0);
  const widths = (valued("--widths") ?? "20,50").split(",").map(Number);
  const only = args.includes("--throughput-only");
  const quick = args.includes("--quick");
  const plain = args.filter(
    (a, i) =>
      !a.startsWith("--") &&
      !["--idle", "--widths", "--profile", "--steady", "--warm"].includes(args[i - 1] ?? ""),
  );
  const n = Number(plain[0] ?? 200);
  const profile = valued("--profile");
  const warm = Number(valued("--warm") ?? 20);
  await runOnce({
    warm,
    n,
    runtime: "runc",
    throughput: !quick,
    only,
    widths,
    // Sustained throughput is what a long-running service sees: measured by default (`--steady 0`: not).
    steady: Number(valued("--steady") ?? 200),
    idle,
    ...(profile ? { profile } : {}),
  });
  if (only || quick) return;
  if (await runtimeRegistered(new Dockerode(), "runsc")) {
    console.log("\n— the same under gVisor (SANDBOX_RUNTIME=runsc) —");
    await runOnce({
      n: Math.max(20, Math.floor(n / 4)),
      runtime: "runsc",
      throughput: false,
      only: false,
      widths: [],
      steady: 0,
      idle: 0,
      // gVisor's calls are 2-5 times as long: fewer of them.
      warm: Math.min(warm, 50),
    });
  } else {
    console.log("\nrunsc is not registered with dockerd: no gVisor table (scripts/register-runsc.sh)");
  }
}

async function runOnce(opts: Options): Promise<void> {
  const { n } = opts;
  const dataDir = mkdtempSync(join(tmpdir(), "tsb-"));
  const config = benchConfig(dataDir, ADMIN, {
    WORKER_CONCURRENCY: "64",
    SANDBOX_RUNTIME: opts.runtime,
    // `--steady`'s extra calls (K per session) would pass the default 6,000 calls a minute.
    ...(opts.steady > 0 ? { TENANT_CALLS_PER_MINUTE: "1000000" } : {}),
  });
  const service = await startService(config, "serve");
  const base = service.url!;
  const req = jsonClient(base);
  const docker = new Dockerode();
  // A session on a claimed warm container gets its name just after its first result: wait for it.
  const containerOf = async (sid: string) => {
    const c = docker.getContainer(sessionPaths(join(dataDir, "sb"), config.SERVICE_ID, sid).containerName);
    for (let i = 0; ; i++) {
      try {
        await c.inspect();
        return c;
      } catch (err) {
        if (i >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  try {
    const { tenantId, agent, newSession } = await benchTenant(req, ADMIN, ["Read", "Bash"]);
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
    if (!opts.only) {
      const sid = await newSession();
      const file = "/workspace/bench-4k";
      await call(sid, "Bash", { command: `head -c 4096 /dev/zero | tr '\\0' x > ${file}` });
      for (let i = 0; i < opts.warm; i++) await call(sid, "Read", { file_path: file });
      for (let i = 0; i < opts.warm; i++) await call(sid, "Bash", { command: "echo hi" });
      const sandbox = await service.deps.sandboxes.acquire({ sessionId: sid, tenantId: tenantId });
      const exec = async (argv: string[]) => {
        const r = await sandbox.exec({ argv, timeoutMs: 10_000, maxOutputBytes: 1 << 20 });
        if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr}`);
      };
      for (let i = 0; i < opts.warm; i++) await exec(["true"]);
      for (let i = 0; i < opts.warm; i++) await exec(["bash", "-c", "echo hi"]);

      const rows: [string, Timing][] = [];
      const row = (label: string, t: Timing) => {
        rows.push([label, t]);
        console.log(`${label.padEnd(44)} ${fmt(t)}`);
        return t;
      };
      console.log(`runtime ${opts.runtime}, one warm session (${opts.warm} calls of each kind before)`);
      const health = row(
        "bare HTTP round trip (GET /healthz)",
        await timeEach(n, async () => void (await fetch(`${base}/healthz`)).arrayBuffer()),
      );
      row("executor stat (protocol floor)", await timeEach(n, async () => void (await sandbox.stat(file))));
      const readFile = row(
        "executor readFile 4 KiB",
        await timeEach(n, async () => void (await sandbox.readFile(file))),
      );
      // A second session whose fork server is stopped (killed as the container's root): its executor
      // starts commands with Node's spawn, as every command did before. Measured in turns with the
      // first, batch by batch, so that both see the same load.
      const plainSid = await newSession();
      await call(plainSid, "Bash", { command: "true" });
      const plain = await service.deps.sandboxes.acquire({ sessionId: plainSid, tenantId: tenantId });
      await rawExecAsRoot(await containerOf(plainSid), [
        "sh",
        "-c",
        "kill -9 $(pgrep -x toolshed-spawne); true",
      ]);
      const execIn = (sb: typeof sandbox) => async (argv: string[]) => {
        const r = await sb.exec({ argv, timeoutMs: 10_000, maxOutputBytes: 1 << 20 });
        if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr}`);
      };
      for (let i = 0; i < Math.max(10, opts.warm / 4); i++)
        await execIn(plain)(["true"]).catch(() => undefined);
      const inTurns = async (argv: string[]) => {
        const ours: number[] = [];
        const nodes: number[] = [];
        const once = async (sb: typeof sandbox, into: number[]) => {
          const t0 = performance.now();
          await execIn(sb)(argv);
          into.push(performance.now() - t0);
        };
        for (let i = 0; i < n; i++) {
          await once(sandbox, ours);
          await once(plain, nodes);
        }
        return [summarize(ours), summarize(nodes)] as const;
      };
      const [spawnTrue, nodeTrue] = await inTurns(["true"]);
      row("executor spawn of `true`", spawnTrue);
      const [echoHi, nodeEcho] = await inTurns(["bash", "-c", "echo hi"]);
      row('executor bash -c "echo hi"', echoHi);
      row("  before: spawn of `true` by Node's spawn", nodeTrue);
      row('  before: bash -c "echo hi" by Node\'s spawn', nodeEcho);
      const read = row(
        "warm Read 4 KiB over HTTP with wait",
        await timeEach(n, () => call(sid, "Read", { file_path: file })),
      );
      const echo = row(
        "warm Bash echo over HTTP with wait",
        await timeEach(n, () => call(sid, "Bash", { command: "echo hi" })),
      );
      await measureRawDockerExec(await containerOf(sid), 3, file);
      const raw = row(
        "raw dockerode exec of `cat` 4 KiB",
        await measureRawDockerExec(
          await containerOf(sid),
          Math.min(n, opts.runtime === "runsc" ? 30 : 60),
          file,
        ),
      );
      console.log("ratios (aims in brackets):");
      console.log(
        `  (Read over HTTP − executor readFile) / bare HTTP = ${((read.p50 - readFile.p50) / health.p50).toFixed(2)} (≤ 3)`,
      );
      console.log(
        `  executor spawn of true / raw docker exec = ${(spawnTrue.p50 / raw.p50).toFixed(3)} (≤ 0.03)`,
      );
      console.log(`  Bash echo over HTTP / raw docker exec = ${(echo.p50 / raw.p50).toFixed(3)} (≤ 0.1)`);
      // The same round trips from a client on its own thread (node:http, kept alive), as an agent
      // in its own process sees them: the service's work after an answer (its events, waking the
      // next call) no longer delays the client's reading of it, as it does in this thread.
      const timedOnThread = async (spec: { sid: string; tool?: string; input?: object; get?: string }) => {
        const r = await runLoad({
          base,
          key: agent,
          sids: [spec.sid],
          perSession: n,
          tool: spec.tool ?? "",
          input: spec.input ?? {},
          client: "http",
          times: true,
          ...(spec.get ? { get: spec.get } : {}),
        });
        if (r.failures > 0) throw new Error(`client thread: ${r.failures} failed, ${r.lastFailure}`);
        return summarize(r.times);
      };
      console.log("the same, client on its own thread (node:http):");
      const health2 = row(
        "  bare HTTP round trip (GET /healthz)",
        await timedOnThread({ sid, get: "/healthz" }),
      );
      const read2 = row(
        "  warm Read 4 KiB over HTTP with wait",
        await timedOnThread({ sid, tool: "Read", input: { file_path: file } }),
      );
      const echo2 = row(
        "  warm Bash echo over HTTP with wait",
        await timedOnThread({ sid, tool: "Bash", input: { command: "echo hi" } }),
      );
      console.log(
        `  (Read over HTTP − executor readFile) / bare HTTP = ${((read2.p50 - readFile.p50) / health2.p50).toFixed(2)} (≤ 3)`,
      );
      console.log(`  Bash echo over HTTP / raw docker exec = ${(echo2.p50 / raw.p50).toFixed(3)} (≤ 0.1)`);
      // A session's executor stays young for thousands of calls: V8 moves its hot path to optimised
      // code one function at a time (spawn28; round 18: its container's CPU per spawn of a no-libc
      // command fell from ~420 to ~230 µs over 3,000). The same spawn once it has made that many
      // more, as a long session sees it. Last, so that the rows above keep their young executor;
      // runc only (under gVisor 3,000 spawns take ~35 s).
      if (opts.runtime === "runc") {
        for (let i = 0; i < STEADY_AFTER; i++) await exec(["true"]);
        const steady = row(
          `executor spawn of \`true\`, after ${STEADY_AFTER} more`,
          await timeEach(n, () => exec(["true"])),
        );
        console.log(
          `  executor spawn of true / raw docker exec, the same after ${STEADY_AFTER} more spawns (a steady executor) = ${(steady.p50 / raw.p50).toFixed(3)}`,
        );
      }
    }
    if (opts.idle > 0) {
      const idleSids = await Promise.all(Array.from({ length: opts.idle }, newSession));
      await pool(idleSids, 10, (s) => call(s, "Bash", { command: "true" }));
      console.log(
        `process RSS (service + bench client): 0 sessions ${mib(rssIdle0)}; ${opts.idle} idle sessions ${mib(process.memoryUsage().rss)}`,
      );
    }
    if (opts.throughput) {
      const perSession = 10;
      for (const width of opts.widths) {
        const sids = await Promise.all(Array.from({ length: width }, newSession));
        await pool(sids, 10, (s) => call(s, "Bash", { command: "true" }));
        let t0 = performance.now();
        await Promise.all(
          sids.map(async (s) => {
            for (let i = 0; i < perSession; i++) await call(s, "Bash", { command: "echo hi" });
          }),
        );
        const ours = (width * perSession) / ((performance.now() - t0) / 1000);
        // The same load again from a client on its own thread (as a real client is: elsewhere),
        // with the CPU it took: the machine's (every process) and this process's, per call. Once
        // with fetch, once with node:http (a load generator's client: less of its own CPU in it).
        // This run's containers (the machine may run others'): their full ids, for the split.
        const runIds = new Set(
          await Promise.all(sids.map(async (s) => (await (await containerOf(s)).inspect()).Id)),
        );
        const apart: { label: string; rate: number; cpu: string; split?: string[] }[] = [];
        // Rows: fetch and node:http on a thread of this process, then raw sockets from a process
        // of its own (a load generator like wrk: the least of its own CPU, counted apart). With
        // `--steady K`: after K unmeasured calls per session (each executor and the service past
        // their JITs' warm-up, as a long-running service and session are), node:http and raw again.
        const runs: { client: "fetch" | "http" | "raw"; label: string; warm: number }[] = [
          { client: "fetch", label: "on its own thread (fetch)", warm: 0 },
          { client: "http", label: "on its own thread (http)", warm: 0 },
          { client: "raw", label: "in its own process (raw sockets)", warm: 0 },
          ...(opts.steady > 0
            ? [
                {
                  client: "http" as const,
                  label: `on its own thread (http), steady: after ${opts.steady} more calls per session`,
                  warm: opts.steady,
                },
                { client: "raw" as const, label: "in its own process (raw sockets), steady", warm: 0 },
              ]
            : []),
        ];
        for (const { client, label, warm } of runs) {
          if (warm > 0) {
            const w = await runLoad({
              base,
              key: agent,
              sids,
              perSession: warm,
              tool: "Bash",
              input: { command: "echo hi" },
              client,
            });
            failures += w.failures;
          }
          // The split by process, around the node:http and raw runs (it is read before and after),
          // from when the load generator is ready (for raw: its process started and connected).
          let procs0: ReturnType<typeof snapProcs> | undefined;
          let machine0 = 0;
          let containers0: number | undefined;
          let process0 = process.cpuUsage();
          const r = await profiled(client === "http" && warm === 0 ? opts.profile : undefined, () =>
            runLoad(
              { base, key: agent, sids, perSession, tool: "Bash", input: { command: "echo hi" }, client },
              () => {
                procs0 = client !== "fetch" ? snapProcs(runIds) : undefined;
                machine0 = machineCpuMs();
                containers0 = containersCpuMs(runIds);
                process0 = process.cpuUsage();
              },
            ),
          );
          failures += r.failures;
          if (r.failures > 0) lastFailure = r.lastFailure;
          const machinePerCall = (machineCpuMs() - machine0) / r.calls;
          const containers1 = containersCpuMs(runIds);
          const containersPerCall =
            containers0 === undefined || containers1 === undefined
              ? undefined
              : (containers1 - containers0) / r.calls;
          const spent = process.cpuUsage(process0);
          const split = procs0 && splitReport(procs0, snapProcs(runIds), r.calls);
          // The raw client's process exited before the second snapshot: its CPU is in "rest".
          if (split && r.clientCpuMs !== undefined)
            split.push(
              `    ${(r.clientCpuMs / r.calls).toFixed(3).padStart(6)}  of the rest: the load generator's process (toolshed-load), from its first call`,
            );
          const processPerCall = (spent.user + spent.system) / 1000 / r.calls;
          apart.push({
            label,
            rate: r.calls / r.seconds,
            split,
            cpu: `CPU per call ${machinePerCall.toFixed(2)} ms on the machine, ${processPerCall.toFixed(2)} ms of it this process (service and client)${containersPerCall === undefined ? "" : `, ${containersPerCall.toFixed(2)} ms the containers (bash, the executor)`}`,
          });
        }
        // The same number of concurrent `docker exec`s of the same command, one per container.
        const perExec = 4;
        const containers = await Promise.all(sids.map(containerOf));
        t0 = performance.now();
        await Promise.all(
          containers.map(async (c) => {
            for (let i = 0; i < perExec; i++) await rawExecEcho(c);
          }),
        );
        const rawRate = (width * perExec) / ((performance.now() - t0) / 1000);
        console.log(
          `throughput ${width} sessions: ${ours.toFixed(1)} Bash echo calls/s over HTTP; raw docker exec ${rawRate.toFixed(1)}/s at ${width} concurrent; ratio ${(ours / rawRate).toFixed(1)} (≥ 10 at 50)`,
        );
        for (const a of apart) {
          console.log(
            `  client ${a.label}: ${a.rate.toFixed(1)} calls/s; ratio ${(a.rate / rawRate).toFixed(1)}; ${a.cpu}`,
          );
          for (const line of a.split ?? []) console.log(`    ${line}`);
        }
      }
      if (!opts.only) {
        const cold = await timeEach(5, async () => call(await newSession(), "Bash", { command: "true" }));
        const rawRun = await measureRawDockerRun(docker, config.SANDBOX_IMAGE, 5, join(dataDir, "raw"));
        console.log(`cold session first call (HTTP)               ${fmt(cold)}`);
        console.log(`raw hardened docker run … true               ${fmt(rawRun)}`);
      }
    }
    console.log(`failed calls during the run: ${failures}${failures ? ` (last: ${lastFailure})` : ""}`);
  } finally {
    await tearDown(service, config, dataDir);
  }
}

/** Runs argv as the container's root and waits for it (the bench's own set-up, not a measure). */
async function rawExecAsRoot(container: Dockerode.Container, argv: string[]): Promise<void> {
  const exec = await container.exec({ Cmd: argv, User: "0", AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve) => {
    stream.on("data", () => {});
    stream.once("end", resolve);
    stream.once("error", () => resolve());
  });
}

/** One raw dockerode exec of `bash -c "echo hi"`: create, start, collect. */
async function rawExecEcho(container: Dockerode.Container): Promise<void> {
  const exec = await container.exec({
    Cmd: ["bash", "-c", "echo hi"],
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve, reject) => {
    stream.on("data", () => {});
    stream.once("end", resolve);
    stream.once("error", reject);
  });
}

/** CPU time the whole machine spent (every process, kernel included), from /proc/stat, in ms. */
function machineCpuMs(): number {
  const fields = readFileSync("/proc/stat", "utf8")
    .split("\n", 1)[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  // user nice system idle iowait irq softirq steal: all but idle and iowait, in USER_HZ (100/s).
  const [user, nice, system, , , irq, softirq, steal] = fields as number[];
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10;
}

/**
 * CPU time of this run's containers (cgroup v1 cpuacct, cgroupfs driver), in ms; undefined
 * elsewhere. Only these: other work on a shared machine may run containers of its own.
 */
function containersCpuMs(ids: Set<string>): number | undefined {
  try {
    let ms = 0;
    for (const id of ids)
      ms += Number(readFileSync(`/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`, "utf8")) / 1e6;
    return ms;
  } catch {
    return undefined;
  }
}
