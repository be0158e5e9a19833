/**
 * `npm run bench -- runtime [n=200]`: the same warm call (`cat` of 4 KiB through the executor) and
 * the same cold `acquire()` under runc and under gVisor (runsc), in one run and interleaved (so both
 * see the same machine load), as ratios runsc ÷ runc. Needs runsc registered with dockerd
 * (scripts/register-runsc.sh); removes everything it made.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { DockerSandboxProvider } from "../src/sandbox/docker-provider.js";
import type { Sandbox } from "../src/sandbox/sandbox.js";
import { runtimeRegistered } from "../src/sandbox/sandbox-runtime.js";
import { measureExecutor, type Timing, timeEach } from "./sandbox-latency.js";

async function benchProvider(runtime: string) {
  const dataDir = await mkdtemp(join(tmpdir(), "tsr-"));
  const provider = new DockerSandboxProvider({
    dataDir,
    serviceId: `bench-rt-${randomBytes(3).toString("hex")}`,
    image: "toolshed-sandbox:latest",
    limits: { memoryBytes: 512 << 20, pids: 256, nanoCpus: 1e9 },
    idleStopMs: 600_000,
    runtime,
  });
  const done = async () => {
    await provider.reapOrphans(new Set());
    await provider.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  return { runtime, provider, done, warm: [] as Timing[], cold: [] as Timing[] };
}

const p50 = (ts: Timing[]) => {
  const xs = ts.map((t) => t.p50).sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)] ?? Number.NaN;
};

export async function run(args: string[]): Promise<void> {
  const n = Number(args[0] ?? 200);
  if (!(await runtimeRegistered(new Dockerode(), "runsc"))) {
    console.log("runsc is not registered with dockerd: run scripts/register-runsc.sh as root");
    process.exitCode = 1;
    return;
  }
  const both = [await benchProvider("runc"), await benchProvider("runsc")];
  try {
    const sandboxes = new Map<string, Sandbox>();
    for (const b of both) {
      const sb = await b.provider.acquire({ sessionId: "warm", tenantId: "bench" });
      await sb.writeFile("/workspace/bench-4k", Buffer.alloc(4096, "x"));
      await measureExecutor(sb, 20);
      sandboxes.set(b.runtime, sb);
    }
    // Batches of 20 in turn, and one cold start each in turn: drift in load hits both alike.
    for (let i = 0; i < Math.ceil(n / 20); i++) {
      for (const b of both) b.warm.push(await measureExecutor(sandboxes.get(b.runtime)!, 20));
    }
    for (let i = 0; i < 7; i++) {
      for (const b of both) {
        b.cold.push(
          await timeEach(1, () =>
            b.provider.acquire({ sessionId: `cold${i}`, tenantId: "bench" }).then(() => {}),
          ),
        );
      }
    }
    for (const b of both) {
      const all = (ts: Timing[]) => ts.map((t) => t.p50);
      console.log(
        `${b.runtime.padEnd(5)} warm cat 4 KiB: median of ${b.warm.length} batch p50s ${p50(b.warm).toFixed(2)} ms`,
      );
      console.log(
        `${b.runtime.padEnd(5)} cold acquire(): p50 ${p50(b.cold).toFixed(0)} ms  (samples ${all(b.cold)
          .map((x) => x.toFixed(0))
          .join(" ")})`,
      );
    }
    const [runc, runsc] = both as [(typeof both)[0], (typeof both)[0]];
    console.log(`warm exec p50 runsc/runc = ${(p50(runsc.warm) / p50(runc.warm)).toFixed(2)}`);
    console.log(`cold start p50 runsc/runc = ${(p50(runsc.cold) / p50(runc.cold)).toFixed(2)}`);
  } finally {
    for (const b of both) await b.done();
  }
}
