/**
 * `npm run bench -- quota [diskMB=1024] [inodes=100000] [runtime=runc]`: a session's agent writes
 * zeros to /workspace and then creates empty files until the kernel stops it; prints how much got
 * in and how long it took. Also the cost of a fresh volume (sparse image + mkfs.ext4 + loop mount)
 * and of remounting one, next to a plain `mkdir` in the same run, and a cold `acquire()` with and
 * without quotas. Needs root; removes everything it made.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Dockerode from "dockerode";
import { DockerSandboxProvider, type DockerSandboxProviderOptions } from "../src/sandbox/docker-provider.js";
import { SANDBOX_UID } from "../src/sandbox/sandbox.js";
import { WorkspaceVolumes } from "../src/sandbox/workspace-volume.js";
import { fmt, timeEach } from "./sandbox-latency.js";

const MIB = 1024 * 1024;
const silent = { info: () => {}, warn: () => {} };

/** A bench provider on its own data directory; `done()` removes its containers, volumes and files. */
async function benchProvider(extra: Partial<DockerSandboxProviderOptions>) {
  const dataDir = await mkdtemp(join(tmpdir(), "tsq-"));
  const provider = new DockerSandboxProvider({
    docker: new Dockerode(),
    dataDir,
    serviceId: `bench-q-${randomBytes(3).toString("hex")}`,
    image: "toolshed-sandbox:latest",
    limits: { memoryBytes: 1024 * MIB, pids: 256, nanoCpus: 1e9 },
    idleStopMs: 600_000,
    ...extra,
  });
  const done = async () => {
    await provider.reapOrphans(new Set());
    await provider.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  return { provider, dataDir, done };
}

/** Fresh volumes and remounts against plain directories, all in one temporary data directory. */
async function setupCost(quota: { diskBytes: number; inodes: number }, n: number): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "tsq-"));
  const dir = (name: string) => join(dataDir, "ws", name);
  const volumes = new WorkspaceVolumes({
    dataDir,
    quota,
    uid: SANDBOX_UID,
    workspaceDir: dir,
    logger: silent,
  });
  try {
    let i = 0;
    const plain = await timeEach(n, () => mkdir(dir(`plain${i++}`), { recursive: true }).then(() => {}));
    let j = 0;
    const fresh = await timeEach(n, async () => {
      const id = `v${j++}`;
      await mkdir(dir(id), { recursive: true });
      await volumes.mount(id, dir(id));
    });
    let k = 0;
    const remount = await timeEach(n, async () => {
      const id = `v${k++}`;
      await volumes.unmount(dir(id));
      await volumes.mount(id, dir(id));
    });
    const sizeMb = quota.diskBytes / MIB;
    console.log(`plain mkdir (baseline)                          ${fmt(plain)}`);
    console.log(`fresh volume ${sizeMb} MiB / ${quota.inodes} inodes (create+mount)  ${fmt(fresh)}`);
    console.log(`remount of an existing volume (stop → start)     ${fmt(remount)}`);
    console.log(`fresh volume p50 − mkdir p50 = ${(fresh.p50 - plain.p50).toFixed(1)} ms per new session`);
  } finally {
    await volumes.reap(new Set());
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Fills one session's workspace with bytes, then with files, from inside the sandbox. */
async function fill(quota: { diskBytes: number; inodes: number }, runtime: string): Promise<void> {
  const b = await benchProvider({ workspaceQuota: quota, runtime });
  try {
    const sb = await b.provider.acquire({ sessionId: "filler", tenantId: "bench" });
    const overshoot = Math.ceil(quota.diskBytes / MIB) + 64;
    const bytes = await sb.exec({
      argv: [
        "bash",
        "-c",
        `head -c ${overshoot}M /dev/zero > /workspace/big; wc -c < /workspace/big; rm /workspace/big`,
      ],
      timeoutMs: 600_000,
      maxOutputBytes: 1 << 16,
    });
    console.log(
      `bytes: asked ${overshoot} MiB, got ${(Number(bytes.stdout.trim()) / MIB).toFixed(1)} MiB in ${(bytes.durationMs / 1000).toFixed(1)} s; ` +
        `${bytes.stderr.includes("No space left on device") ? "ENOSPC" : `no ENOSPC (${bytes.stderr.trim()})`}; quota ${quota.diskBytes / MIB} MiB`,
    );
    // Redirections, not `touch`: no process per file, so this measures the filesystem.
    const files = await sb.exec({
      argv: [
        "bash",
        "-c",
        "mkdir /workspace/f && cd /workspace/f && i=0; while : > $i; do i=$((i+1)); done; echo $i",
      ],
      timeoutMs: 600_000,
      maxOutputBytes: 1 << 16,
    });
    console.log(
      `inodes: created ${files.stdout.trim()} files in ${(files.durationMs / 1000).toFixed(1)} s; ` +
        `${files.stderr.includes("No space left on device") ? "ENOSPC" : "no ENOSPC"}; quota ${quota.inodes} inodes`,
    );
    const image = await stat(join(b.dataDir, "volumes", "filler.img"));
    console.log(
      `host disk used by the volume: ${((image.blocks * 512) / MIB).toFixed(1)} MiB (image size ${quota.diskBytes / MIB} MiB)`,
    );
  } finally {
    await b.done();
  }
}

/** Cold acquire() with quotas on and off, alternating so that both see the same machine load. */
async function coldAcquire(quota: { diskBytes: number; inodes: number }, runtime: string, n: number) {
  const on = await benchProvider({ workspaceQuota: quota, runtime });
  const off = await benchProvider({ workspaceQuota: "off", runtime });
  try {
    await on.provider.acquire({ sessionId: "warmup", tenantId: "bench" });
    await off.provider.acquire({ sessionId: "warmup", tenantId: "bench" });
    const onSamples: number[] = [];
    const offSamples: number[] = [];
    for (let i = 0; i < n; i++) {
      for (const [b, samples] of [
        [on, onSamples],
        [off, offSamples],
      ] as const) {
        const started = performance.now();
        await b.provider.acquire({ sessionId: `cold${i}`, tenantId: "bench" });
        samples.push(performance.now() - started);
      }
    }
    const p50 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? Number.NaN;
    console.log(
      `cold acquire() p50: quota on ${p50(onSamples).toFixed(0)} ms, off ${p50(offSamples).toFixed(0)} ms ` +
        `(ratio ${(p50(onSamples) / p50(offSamples)).toFixed(2)}, n=${n}, ${runtime})`,
    );
  } finally {
    await on.done();
    await off.done();
  }
}

export async function run(args: string[]): Promise<void> {
  const quota = { diskBytes: Number(args[0] ?? 1024) * MIB, inodes: Number(args[1] ?? 100_000) };
  const runtime = args[2] ?? "runc";
  await setupCost(quota, 10);
  await coldAcquire(quota, runtime, 5);
  await fill(quota, runtime);
}
