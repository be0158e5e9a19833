import { describe, expect, it } from "vitest";
import { minorFaults, type Snap, splitReport, syscallsOf } from "../../bench/proc-split.js";

const ms = 1e6;
const snap = (
  threads: [string, string, number, number?][],
  containers: number,
  machine: number,
  mainSyscalls = { reads: 0, writes: 0 },
): Snap => ({
  threads: new Map(threads.map(([k, group, n, faults = 0]) => [k, { group, ns: n * ms, faults }])),
  mainSyscalls,
  containers,
  machine,
});

describe("splitReport", () => {
  it("divides each group's CPU by the calls, counts new threads whole and puts exited container processes apart", () => {
    const a = snap(
      [
        ["1/1", "this process: main thread (the service)", 100, 7],
        ["2/2", "container: node (executor, file helper)", 50, 1000],
        ["3/3", "redis-server", 10],
      ],
      1000,
      5000,
      { reads: 100, writes: 200 },
    );
    const b = snap(
      [
        ["1/1", "this process: main thread (the service)", 120, 27],
        ["2/2", "container: node (executor, file helper)", 60, 1450],
        ["3/3", "redis-server", 12],
        // Born during the run: all of it is the run's.
        ["4/4", "container: toolshed-spawne", 2, 30],
      ],
      // The containers' cgroup grew 30 ms, 12 of them in live threads: 18 exited (bash).
      1030,
      // 60 ms on the machine: 34 live, 18 exited in containers, 8 elsewhere.
      5060,
      { reads: 125, writes: 262 },
    );
    expect(splitReport(a, b, 10)).toEqual([
      "machine 6.000 ms per call (other work on the machine included); by thread group (live threads' schedstat; minor page faults per call):",
      "     2.000     2.0  this process: main thread (the service)",
      "     1.000    45.0  container: node (executor, file helper)",
      "     0.200     0.0  redis-server",
      "     0.200     3.0  container: toolshed-spawne",
      "     1.800  container: exited processes (the commands: bash), cgroup total − live",
      "     0.800  rest (exited host processes, interrupts; /proc/stat ticks are coarse)",
      "    the service's main thread: 2.5 read and 6.2 write syscalls per call (counted)",
    ]);
  });

  it("reads the minor faults from a stat line whose name holds spaces and parentheses", () => {
    const line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 1234 0 5 0 10 3 0 0 20 0 1 0 99 1000 50";
    expect(minorFaults(line)).toBe(1234);
    expect(minorFaults(undefined)).toBe(0);
  });

  it("reads this thread's syscall counts from its /proc io file", () => {
    const { reads, writes } = syscallsOf(`/proc/${process.pid}/task/${process.pid}/io`);
    expect(reads).toBeGreaterThan(0);
    expect(Number.isInteger(writes)).toBe(true);
  });
});
