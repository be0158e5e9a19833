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
    user: Number(f[11]) * 10,
    sys: Number(f[12]) * 10,
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
    const callIn = (sid: string) => async () => {
      const { job } = await req("POST", `/v1/sessions/${sid}/calls?wait=60`, agent, {
        tool: "Bash",
        input: { command: CMD },
      });
      if (job.status !== "succeeded") throw new Error(JSON.stringify(job));
    };
    const docker = new Dockerode();
    // A session on a claimed warm container gets its name just after its first result: wait for it.
    const containerId = async (sid: string): Promise<string> => {
      const c = docker.getContainer(sessionPaths(join(dataDir, "sb"), config.SERVICE_ID, sid).containerName);
      for (let i = 0; ; i++) {
        try {
          return (await c.inspect()).Id;
        } catch (err) {
          if (i >= 50) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    if (CURVE) {
      await curve(newSession, callIn, containerId, N);
      return;
    }
    const sid = await newSession();
    const call = callIn(sid);
    for (let i = 0; i < 30; i++) await call();
    const cid = await containerId(sid);
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
 * `--curve`: a fresh session's executor CPU per call against how many calls it has served (calls
 * 2-10, 11-30, ... after its first), measured in turns, call by call, with a session whose
 * executor already served `n` calls: both see the same load, and the fresh one's excess over the
 * warm one is its JIT warming. The fresh session is started after the warm one's `n` calls (its
 * container has idled in the warm pool meanwhile, as a claimed container has).
 */
async function curve(
  newSession: () => Promise<string>,
  callIn: (sid: string) => () => Promise<void>,
  containerId: (sid: string) => Promise<string>,
  n: number,
): Promise<void> {
  const executorOf = async (sid: string) => {
    const cid = await containerId(sid);
    for (const [pid, p] of snapshot(cid).procs) if (p.comm === "node" && p.self > 0) return { cid, pid };
    throw new Error("no executor in the container");
  };
  // The executor is the container's first node process (the file helper is its child, started after).
  const executorSched = (e: { cid: string; pid: number }) => {
    const s = snapshot(e.cid);
    const pids = [...s.procs.entries()].filter(([, p]) => p.comm === "node").map(([pid]) => pid);
    const p = s.procs.get(Math.min(...pids));
    return { sched: p?.sched ?? 0, user: p?.user ?? 0, sys: p?.sys ?? 0 };
  };
  const warmSid = await newSession();
  const warm = callIn(warmSid);
  for (let i = 0; i < n; i++) await warm();
  const warmEx = await executorOf(warmSid);
  const freshSid = await newSession();
  const fresh = callIn(freshSid);
  await fresh();
  const freshEx = await executorOf(freshSid);
  console.log(`executor CPU per call (ms), a fresh session's against one that served ${n} calls, in turns:`);
  let done = 1;
  for (const upto of [10, 30, 100, 300, 1000, 3000].filter((u) => u <= n)) {
    const f0 = executorSched(freshEx);
    const w0 = executorSched(warmEx);
    for (let i = done; i < upto; i++) {
      await fresh();
      await warm();
    }
    const k = upto - done;
    const f1 = executorSched(freshEx);
    const w1 = executorSched(warmEx);
    const f = (f1.sched - f0.sched) / k;
    const w = (w1.sched - w0.sched) / k;
    const us = (a: { user: number; sys: number }, b: { user: number; sys: number }) =>
      `user ${((b.user - a.user) / k).toFixed(2)} sys ${((b.sys - a.sys) / k).toFixed(2)}`;
    console.log(
      `  calls ${String(done + 1).padStart(5)}-${String(upto).padEnd(5)} fresh ${f.toFixed(3)} (${us(f0, f1)}) warm ${w.toFixed(3)} (${us(w0, w1)}) excess ${(f - w).toFixed(3)}`,
    );
    done = upto;
  }
}
