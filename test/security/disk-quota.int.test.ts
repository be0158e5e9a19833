import { existsSync, statSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMounts } from "../../src/sandbox/mount-table.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { sessionPaths } from "../../src/sandbox/session-paths.js";
import { createTestProvider, identitiesOf, sh, type TestProvider } from "../sandbox/harness.js";
import { RUNTIMES } from "./runtimes.js";

const QUOTA = { diskBytes: 20 * 1024 * 1024, inodes: 2000 };

// A hostile agent fills its /workspace; the kernel stops it at the quota, on runc and on gVisor.
describe.each(RUNTIMES)("workspace quota under %s", (runtime) => {
  let t: TestProvider;
  let a: Sandbox;
  let b: Sandbox;
  const acquire = (sessionId: string) => t.provider.acquire({ sessionId, tenantId: "ten_q" });
  const workspaceDir = (sessionId: string) => sessionPaths(t.dataDir, t.serviceId, sessionId).workspaceDir;
  const image = (sessionId: string) => join(t.dataDir, "volumes", `${sessionId}.img`);
  const mountedAt = async (dir: string) => (await readMounts()).some((m) => m.mountPoint === dir);

  beforeAll(async () => {
    t = await createTestProvider({ workspaceQuota: QUOTA, runtime });
    [a, b] = await Promise.all([acquire("ses_qa"), acquire("ses_qb")]);
  });
  afterAll(async () => {
    // Also what a handed-over provider left mounted: every container and volume of this service.
    await t?.provider.reapOrphans(new Set());
    await t?.cleanup();
    if (t) await rm(t.dataDir, { recursive: true, force: true });
  });

  it("gives the agent its own writable filesystem of the quota's size, nothing else in it", async () => {
    const r = await a.exec(
      sh(
        "df -B1 --output=size,itotal /workspace | tail -1; shopt -s nullglob dotglob; set -- /workspace/*; echo $#",
      ),
    );
    const [size, inodes, entries] = r.stdout.trim().split(/\s+/).map(Number);
    expect(size).toBeLessThanOrEqual(QUOTA.diskBytes);
    expect(size).toBeGreaterThan(QUOTA.diskBytes * 0.85);
    expect(inodes).toBeLessThanOrEqual(QUOTA.inodes);
    expect(entries).toBe(0);
    expect((await a.exec(sh("touch /workspace/ok && echo ok"))).stdout).toBe("ok\n");
  });

  it("stops bytes at the quota with ENOSPC, and the host holds no more than the image", async () => {
    const r = await a.exec(sh("head -c 40M /dev/zero > /workspace/big; echo rc=$?; wc -c < /workspace/big"));
    expect(r.stderr).toMatch(/No space left on device/);
    const [rc, written] = r.stdout.trim().split("\n");
    expect(rc).toBe("rc=1");
    expect(Number(written)).toBeGreaterThan(QUOTA.diskBytes * 0.75);
    expect(Number(written)).toBeLessThanOrEqual(QUOTA.diskBytes);
    // The bytes landed in the sparse image, whose allocation the quota bounds.
    const allocated = (await stat(image("ses_qa"))).blocks * 512;
    expect(allocated).toBeGreaterThanOrEqual(Number(written));
    expect(allocated).toBeLessThanOrEqual(QUOTA.diskBytes);
    await expect(a.writeFile("/workspace/more.txt", "x".repeat(1 << 20))).rejects.toThrow(/no space left/i);
    await a.exec(sh("rm -f /workspace/big /workspace/more.txt"));
  });

  it("stops file creation near the inode limit", async () => {
    // Redirections, not `touch`: no process per file (forks are slow under gVisor's ptrace).
    const r = await a.exec(
      sh(
        "mkdir -p /workspace/many && cd /workspace/many && i=0; while : > f$i; do i=$((i+1)); done; echo $i",
        {
          timeoutMs: 60_000,
        },
      ),
    );
    expect(r.stderr).toMatch(/No space left on device/);
    const created = Number(r.stdout.trim());
    expect(created).toBeGreaterThan(QUOTA.inodes - 100);
    expect(created).toBeLessThanOrEqual(QUOTA.inodes);
    await a.exec(sh("rm -rf /workspace/many", { timeoutMs: 60_000 }));
  });

  it("leaves another session its whole quota while one is full", async () => {
    await a.exec(sh("head -c 40M /dev/zero > /workspace/full"));
    const r = await b.exec(sh("head -c 10M /dev/zero > /workspace/fine && wc -c < /workspace/fine"));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`${10 * 1024 * 1024}\n`);
    await a.exec(sh("rm -f /workspace/full"));
  });

  it("bounds /dev/shm (a tmpfs counted in the container's memory)", async () => {
    const r = await a.exec(sh("head -c 100M /dev/zero > /dev/shm/x; wc -c < /dev/shm/x; rm -f /dev/shm/x"));
    expect(r.stderr).toMatch(/No space left on device/);
    expect(Number(r.stdout.trim())).toBe(64 * 1024 * 1024);
  });

  it("keeps the workspace across a stop and start, unmounted (and unwritable) in between", async () => {
    await a.writeFile("/workspace/keep.txt", "kept");
    const dir = workspaceDir("ses_qa");
    expect(await mountedAt(dir)).toBe(true);
    await t.provider.stop("ses_qa");
    expect(await mountedAt(dir)).toBe(false);
    // The bare mount point: empty, root's, so a container started without the volume cannot write.
    expect(await readdir(dir)).toEqual([]);
    expect(statSync(dir)).toMatchObject({ uid: 0, mode: 0o40755 });
    const again = await acquire("ses_qa");
    expect((await again.readFile("/workspace/keep.txt")).data.toString()).toBe("kept");
    const owner = await again.exec(sh("id -u; touch /workspace/again && echo writable"));
    expect(owner.stdout).toBe(`${(await identitiesOf("ses_qa", t.serviceId)).agent}\nwritable\n`);
  });

  it("remove() unmounts and deletes the image", async () => {
    await acquire("ses_qrm");
    expect(existsSync(image("ses_qrm"))).toBe(true);
    await t.provider.remove("ses_qrm");
    expect(existsSync(image("ses_qrm"))).toBe(false);
    expect(await mountedAt(workspaceDir("ses_qrm"))).toBe(false);
  });

  it("reapOrphans destroys the volumes of sessions no longer live, even mounted ones", async () => {
    await acquire("ses_qorphan");
    const reaped = await t.provider.reapOrphans(new Set(["ses_qa", "ses_qb"]));
    expect(reaped).toBe(1);
    expect(existsSync(image("ses_qorphan"))).toBe(false);
    expect(await mountedAt(workspaceDir("ses_qorphan"))).toBe(false);
    expect(existsSync(image("ses_qa"))).toBe(true);
  });

  it("a new worker process reuses the volume still mounted under a running container", async () => {
    const sb = await acquire("ses_qhand");
    await sb.writeFile("/workspace/h.txt", "handed over");
    await t.provider.close({ stopContainers: false });
    t = await createTestProvider(
      { workspaceQuota: QUOTA, runtime },
      { serviceId: t.serviceId, dataDir: t.dataDir },
    );
    const again = await acquire("ses_qhand");
    expect((await again.readFile("/workspace/h.txt")).data.toString()).toBe("handed over");
    const mounts = (await readMounts()).filter((m) => m.mountPoint === workspaceDir("ses_qhand"));
    expect(mounts).toHaveLength(1);
  });
});
