/**
 * Host-channel fairness: one sandbox floods connect() on its executor socket while another
 * session runs warm `echo` calls; the victim's p50 with the flood ÷ without it, measured
 * alternately in the same run. A neighbour burning the same CPU without touching the socket is
 * measured too: flood ÷ busy is what the channel itself costs the victim, the rest is the CPU the
 * neighbour is entitled to (SANDBOX_CPUS). `npm run bench -- flood [calls] [rounds]`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DockerSandboxProvider } from "../src/sandbox/docker-provider.js";
import type { Sandbox } from "../src/sandbox/sandbox.js";
import { timeEach } from "./sandbox-latency.js";

const fmt = (ms: number) => ms.toFixed(2);

// Bounded: at most this long per flood, connects counted; it stops by itself.
const FLOOD_SECONDS = 20;
const FLOOD = `
import socket, time
ok = refused = 0
end = time.time() + ${FLOOD_SECONDS}
while time.time() < end:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect("/run/toolshed/host.sock"); ok += 1
    except OSError:
        refused += 1
    finally:
        s.close()
print(ok, refused)
`;
const BUSY = `
import time
end = time.time() + ${FLOOD_SECONDS}
n = 0
while time.time() < end:
    n += 1
print(n)
`;

export async function run(args: string[]): Promise<void> {
  const calls = Number(args[0] ?? 200);
  const rounds = Number(args[1] ?? 3);
  const dataDir = await mkdtemp(join(tmpdir(), "tsf-"));
  const provider = new DockerSandboxProvider({
    dataDir,
    serviceId: `bench-flood-${process.pid}`,
    image: "toolshed-sandbox:latest",
    limits: { memoryBytes: 512 << 20, pids: 256, nanoCpus: 1e9 },
    idleStopMs: 600_000,
  });
  try {
    const victim = await provider.acquire({ sessionId: "victim", tenantId: "a" });
    const flooder = await provider.acquire({ sessionId: "flooder", tenantId: "b" });
    const echo = (sb: Sandbox) => () =>
      sb.exec({ argv: ["echo", "hi"], timeoutMs: 10_000, maxOutputBytes: 1024 }).then(() => undefined);
    await timeEach(20, echo(victim));
    const quiet: number[] = [];
    const loud: number[] = [];
    const busy: number[] = [];
    let attempts = "";
    const during = async (program: string): Promise<{ p50: number; out: string }> => {
      const neighbour = flooder.exec({
        argv: ["python3", "-c", program],
        timeoutMs: (FLOOD_SECONDS + 10) * 1000,
        maxOutputBytes: 1024,
      });
      // Let the neighbour reach full speed before measuring.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { p50 } = await timeEach(calls, echo(victim));
      return { p50, out: (await neighbour).stdout.trim() };
    };
    for (let r = 0; r < rounds; r++) {
      quiet.push((await timeEach(calls, echo(victim))).p50);
      const f = await during(FLOOD);
      loud.push(f.p50);
      attempts = f.out;
      busy.push((await during(BUSY)).p50);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    const [ok, refused] = attempts.split(" ");
    console.log(
      `victim warm echo p50 without flood: ${fmt(med(quiet))} ms (rounds: ${quiet.map(fmt).join(", ")})`,
    );
    console.log(
      `victim warm echo p50 during flood:  ${fmt(med(loud))} ms (rounds: ${loud.map(fmt).join(", ")})`,
    );
    console.log(
      `victim warm echo p50 beside a busy loop: ${fmt(med(busy))} ms (rounds: ${busy.map(fmt).join(", ")})`,
    );
    console.log(
      `ratio flood/without: ${(med(loud) / med(quiet)).toFixed(2)}; busy/without: ${(med(busy) / med(quiet)).toFixed(2)}`,
    );
    console.log(
      `ratio flood/busy (what the channel itself costs): ${(med(loud) / med(busy)).toFixed(2)} (aim: <= 1.20)`,
    );
    console.log(`flooder's last round: ${ok} connects accepted, ${refused} refused in ${FLOOD_SECONDS} s`);
  } finally {
    await provider.reapOrphans(new Set());
    await provider.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
