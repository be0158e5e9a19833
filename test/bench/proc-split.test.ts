import { describe, expect, it } from "vitest";
import { type Snap, splitReport } from "../../bench/proc-split.js";

const ms = 1e6;
const snap = (threads: [string, string, number][], containers: number, machine: number): Snap => ({
  threads: new Map(threads.map(([k, group, n]) => [k, { group, ns: n * ms }])),
  containers,
  machine,
});

describe("splitReport", () => {
  it("divides each group's CPU by the calls, counts new threads whole and puts exited container processes apart", () => {
    const a = snap(
      [
        ["1/1", "this process: main thread (the service)", 100],
        ["2/2", "container: node (executor, file helper)", 50],
        ["3/3", "redis-server", 10],
      ],
      1000,
      5000,
    );
    const b = snap(
      [
        ["1/1", "this process: main thread (the service)", 120],
        ["2/2", "container: node (executor, file helper)", 60],
        ["3/3", "redis-server", 12],
        // Born during the run: all of it is the run's.
        ["4/4", "container: toolshed-spawne", 2],
      ],
      // The containers' cgroup grew 30 ms, 12 of them in live threads: 18 exited (bash).
      1030,
      // 60 ms on the machine: 34 live, 18 exited in containers, 8 elsewhere.
      5060,
    );
    expect(splitReport(a, b, 10)).toEqual([
      "machine 6.000 ms per call (other work on the machine included); by thread group (live threads' schedstat):",
      "     2.000  this process: main thread (the service)",
      "     1.000  container: node (executor, file helper)",
      "     0.200  redis-server",
      "     0.200  container: toolshed-spawne",
      "     1.800  container: exited processes (the commands: bash), cgroup total − live",
      "     0.800  rest (exited host processes, interrupts; /proc/stat ticks are coarse)",
    ]);
  });
});
