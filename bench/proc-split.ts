/**
 * The machine's CPU split by process, from every thread's /proc schedstat (on-CPU ns): this
 * process by thread (the service's main thread, the client's thread, libuv and V8 helpers), each
 * container process by name (executor, file helper, fork server) and what exited in the
 * containers (the commands: bash), redis, dockerd/containerd and their shims, the rest. Taken
 * around a run; `report` divides by the run's calls.
 */
import { readdirSync, readFileSync } from "node:fs";

export type Snap = {
  threads: Map<string, { group: string; ns: number; faults: number }>;
  /** The service's main thread's read and write syscalls (counted: a load-independent figure). */
  mainSyscalls: { reads: number; writes: number };
  containers: number;
  machine: number;
};

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function groupOf(pid: number, tid: number, comm: string, tcomm: string, ours: Set<string>): string {
  // Node names no thread of its own: the client's thread is the busiest of the others.
  if (pid === process.pid)
    return tid === pid ? "this process: main thread (the service)" : `this process: thread ${tid} ${tcomm}`;
  const cg = read(`/proc/${pid}/cgroup`) ?? "";
  const docker = /\/docker\/([0-9a-f]{64})/.exec(cg);
  // Another run's containers (the machine is shared) are counted apart from this run's.
  if (docker) {
    if (!ours.has(docker[1]!)) return "other containers (not this run's)";
    return `container: ${comm === "node" ? "node (executor, file helper)" : comm}`;
  }
  if (/^kworker|^ksoftirqd|^rcu_|^migration|^kdamond/.test(comm)) return "kernel threads";
  return comm;
}

/**
 * A thread's minor page faults from its /proc stat line (the 10th field; the name before it, in
 * parentheses, may hold spaces). Under nested virtualization a fault costs ~1.5 µs, so a process
 * that maps fresh pages on every call pays for it there.
 */
export function minorFaults(stat: string | undefined): number {
  if (stat === undefined) return 0;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[7] ?? 0);
}

/**
 * Every live thread's on-CPU time, the cgroup total of this run's containers (`ours`, full ids)
 * and the machine's, all in ms.
 */
export function snapProcs(ours: Set<string>): Snap {
  const threads = new Map<string, { group: string; ns: number; faults: number }>();
  for (const p of readdirSync("/proc")) {
    const pid = Number(p);
    if (!Number.isInteger(pid)) continue;
    const comm = (read(`/proc/${pid}/comm`) ?? "").trim();
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const t of tids) {
      const s = read(`/proc/${pid}/task/${t}/schedstat`);
      if (s === undefined) continue;
      const tcomm = (read(`/proc/${pid}/task/${t}/comm`) ?? "").trim();
      threads.set(`${pid}/${t}`, {
        group: groupOf(pid, Number(t), comm, tcomm, ours),
        ns: Number(s.split(" ")[0]),
        faults: minorFaults(read(`/proc/${pid}/task/${t}/stat`)),
      });
    }
  }
  let containers = 0;
  for (const id of ours)
    containers += Number(read(`/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`) ?? Number.NaN) / 1e6;
  const [user, nice, system, , , irq, softirq, steal] = (read("/proc/stat") ?? "")
    .split("\n", 1)[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number) as number[];
  const machine =
    ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 10;
  return {
    threads,
    mainSyscalls: syscallsOf(`/proc/${process.pid}/task/${process.pid}/io`),
    containers,
    machine,
  };
}

/** A thread's read and write syscalls so far, from its /proc io file (`syscr`, `syscw`). */
export function syscallsOf(path: string): { reads: number; writes: number } {
  const io = read(path) ?? "";
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? Number.NaN);
  return { reads: field("syscr"), writes: field("syscw") };
}

/** Lines of ms per call by group between two snapshots (threads that lived through both, plus the rest). */
export function splitReport(a: Snap, b: Snap, calls: number): string[] {
  const by = new Map<string, number>();
  const faultsBy = new Map<string, number>();
  let containerLive = 0;
  let live = 0;
  for (const [k, after] of b.threads) {
    const before = a.threads.get(k);
    const d = (after.ns - (before?.ns ?? 0)) / 1e6;
    by.set(after.group, (by.get(after.group) ?? 0) + d);
    faultsBy.set(after.group, (faultsBy.get(after.group) ?? 0) + after.faults - (before?.faults ?? 0));
    live += d;
    if (after.group.startsWith("container: ")) containerLive += d;
  }
  const containers = b.containers - a.containers;
  const machine = b.machine - a.machine;
  const exited = containers - containerLive;
  const rows = [...by.entries()].filter(([, ms]) => ms / calls >= 0.01).sort((x, y) => y[1] - x[1]);
  const f = (ms: number) => (ms / calls).toFixed(3);
  return [
    `machine ${f(machine)} ms per call (other work on the machine included); by thread group (live threads' schedstat; minor page faults per call):`,
    ...rows.map(
      ([g, ms]) =>
        `    ${f(ms).padStart(6)}  ${((faultsBy.get(g) ?? 0) / calls).toFixed(1).padStart(6)}  ${g}`,
    ),
    `    ${f(exited).padStart(6)}  container: exited processes (the commands: bash), cgroup total − live`,
    `    ${f(machine - live - exited).padStart(6)}  rest (exited host processes, interrupts; /proc/stat ticks are coarse)`,
    `    the service's main thread: ${((b.mainSyscalls.reads - a.mainSyscalls.reads) / calls).toFixed(1)} read and ${((b.mainSyscalls.writes - a.mainSyscalls.writes) / calls).toFixed(1)} write syscalls per call (counted)`,
  ];
}
