/**
 * `npm run bench -- container [n=1000] [command="echo hi"] [--curve]`: where one session container's CPU
 * goes per warm Bash call over HTTP, by process: the executor, the fork server, and the commands
 * it started and reaped (bash and what it ran), from the container's cgroup (v1 cpuacct) and each
 * process's /proc schedstat. Calls are made one after another; the figures are CPU, not time.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { startService } from "../src/cli/compose.js";
import { sessionPaths } from "../src/sandbox/session-paths.js";
import { benchConfig, benchTenant, jsonClient, tearDown } from "./support.js";

const ADMIN = `bench-admin-${randomBytes(8).toString("hex")}`;

/** A process's CPU in ms: on-CPU time of all its threads, and (in ticks) its own and its reaped children's. */
function procCpu(pid: number) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields after comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
  let sched = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      sched += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]) / 1e6;
    } catch {}
  }
  return {
    comm: readFileSync(`/proc/${pid}/comm`, "utf8").trim(),
    sched,
    self: (Number(f[11]) + Number(f[12])) * 10,
    children: (Number(f[13]) + Number(f[14])) * 10,
  };
}

/** The container's CPU (cgroup) and each of its live processes'. */
function snapshot(cid: string) {
  const base = `/sys/fs/cgroup/cpuacct/docker/${cid}`;
  const pids = readFileSync(`${base}/cgroup.procs`, "utf8").trim().split("\n").map(Number);
  const procs = new Map<number, ReturnType<typeof procCpu>>();
  for (const p of pids) {
    try {
      procs.set(p, procCpu(p));
    } catch {}
  }
  return {
    total: Number(readFileSync(`${base}/cpuacct.usage`, "utf8")) / 1e6,
    user: Number(readFileSync(`${base}/cpuacct.usage_user`, "utf8")) / 1e6,
    sys: Number(readFileSync(`${base}/cpuacct.usage_sys`, "utf8")) / 1e6,
    procs,
  };
}

export async function run(args: string[]): Promise<void> {
  const CURVE = args.includes("--curve");
  const plain = args.filter((a) => a !== "--curve");
  const N = Number(plain[0] ?? 1000);
  const CMD = plain[1] ?? "echo hi";
  const dataDir = mkdtempSync(join(tmpdir(), "tsb-"));
  const config = benchConfig(dataDir, ADMIN, { WORKER_CONCURRENCY: "64" });
  const service = await startService(config, "serve");
  const req = jsonClient(service.url!);
  try {
    const { agent, newSession } = await benchTenant(req, ADMIN, ["Read", "Bash"]);
    const sid = await newSession();
    const call = async () => {
      const { job } = await req("POST", `/v1/sessions/${sid}/calls?wait=60`, agent, {
        tool: "Bash",
        input: { command: CMD },
      });
      if (job.status !== "succeeded") throw new Error(JSON.stringify(job));
    };
    const docker = new Dockerode();
    if (CURVE) {
      await curve(docker, call, sessionPaths(join(dataDir, "sb"), config.SERVICE_ID, sid).containerName, N);
      return;
    }
    for (let i = 0; i < 30; i++) await call();
    const name = sessionPaths(join(dataDir, "sb"), config.SERVICE_ID, sid).containerName;
    const cid = (await docker.getContainer(name).inspect()).Id;
    const a = snapshot(cid);
    const p0 = process.cpuUsage();
    for (let i = 0; i < N; i++) await call();
    const p1 = process.cpuUsage(p0);
    const b = snapshot(cid);
    const per = (x: number) => (x / N).toFixed(3);
    console.log(
      `per call (${N} x ${CMD}): container ${per(b.total - a.total)} ms (user ${per(b.user - a.user)} sys ${per(b.sys - a.sys)}); service+client ${per((p1.user + p1.system) / 1000)}`,
    );
    let named = 0;
    for (const [pid, after] of b.procs) {
      const before = a.procs.get(pid);
      if (!before) continue;
      named += after.sched - before.sched;
      console.log(
        `  ${pid} ${after.comm.padEnd(16)} sched ${per(after.sched - before.sched)} self ${per(after.self - before.self)} reaped children ${per(after.children - before.children)}`,
      );
    }
    console.log(`  rest (exited processes, by cgroup total − live sched): ${per(b.total - a.total - named)}`);
  } finally {
    await tearDown(service, config, dataDir);
  }
}

/**
 * `--curve`: a fresh session's executor CPU per call against how many calls it has served (the
 * first call, then calls 2-10, 11-100, 101-1000, ...): how much of a call's cost is the executor's
 * JIT still warming. The first call also pays the session's claim of a warm container.
 */
async function curve(docker: Dockerode, call: () => Promise<void>, name: string, n: number): Promise<void> {
  await call();
  const cid = (await docker.getContainer(name).inspect()).Id;
  const executorPid = () => {
    const s = snapshot(cid);
    for (const [pid, p] of s.procs) if (p.comm === "node") return { pid, s };
    throw new Error("no executor in the container");
  };
  let { pid, s: prev } = executorPid();
  let done = 1;
  console.log(`executor ${pid}; CPU per call over each span (ms): executor sched / container total`);
  for (const upto of [2, 10, 30, 100, 300, 1000, 3000, 10000].filter((u) => u <= n)) {
    for (let i = done; i < upto; i++) await call();
    const cur = snapshot(cid);
    const k = upto - done;
    const ex = (cur.procs.get(pid)?.sched ?? 0) - (prev.procs.get(pid)?.sched ?? 0);
    let live = 0;
    const others: string[] = [];
    for (const [p, after] of cur.procs) {
      const d = after.sched - (prev.procs.get(p)?.sched ?? 0);
      live += d;
      if (p !== pid && d / k >= 0.005) others.push(`${after.comm} ${(d / k).toFixed(3)}`);
    }
    console.log(
      `  calls ${String(done + 1).padStart(5)}-${String(upto).padEnd(5)} executor ${(ex / k).toFixed(3)} container ${((cur.total - prev.total) / k).toFixed(3)} (${others.join(", ")}; exited ${((cur.total - prev.total - live) / k).toFixed(3)})`,
    );
    prev = cur;
    done = upto;
  }
}
