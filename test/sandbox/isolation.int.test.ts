import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { createTestProvider, sh, type TestProvider } from "./harness.js";

// Checked from inside the sandbox, as a tool call would see it.
describe("sandbox isolation", () => {
  let t: TestProvider;
  let sb: Sandbox;

  beforeAll(async () => {
    t = await createTestProvider();
    sb = await t.provider.acquire({ sessionId: "ses_iso", tenantId: "ten_a" });
  });
  afterAll(async () => t?.cleanup());

  const run = async (command: string) => {
    const r = await sb.exec(sh(command));
    return { ...r, out: r.stdout.trim() };
  };

  it("runs as a non-root user", async () => {
    const r = await run("id -u; id -g");
    expect(r.out).toBe("1000\n1000");
  });

  it("has no network interface but loopback", async () => {
    const r = await run("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    expect(r.out.split("\n")).toEqual(["lo"]);
  });

  it("has no effective capabilities and no_new_privs set", async () => {
    const r = await run("grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status");
    const status = Object.fromEntries(r.out.split("\n").map((l) => l.split(/:\s+/) as [string, string]));
    expect(status.CapEff).toMatch(/^0+$/);
    expect(status.CapPrm).toMatch(/^0+$/);
    expect(status.CapBnd).toMatch(/^0+$/);
    expect(status.NoNewPrivs).toBe("1");
  });

  it("has a read-only root but writable workspace, /tmp and home", async () => {
    const ro = await run("touch /usr/x 2>&1; echo rc=$?; touch /etc/x 2>&1; echo rc=$?");
    expect(ro.out).toMatch(/Read-only file system[\s\S]*rc=1[\s\S]*Read-only file system[\s\S]*rc=1/);
    const rw = await run("touch /workspace/w /tmp/t ~/h && echo ok");
    expect(rw.out).toBe("ok");
    expect(rw.exitCode).toBe(0);
  });

  it("shows the memory and pids limits in its cgroup", async () => {
    const r = await run(
      "if [ -f /sys/fs/cgroup/memory.max ]; then cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max; " +
        "else cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max; fi",
    );
    expect(r.out.split("\n")).toEqual([String(256 * 1024 * 1024), "128"]);
  });

  it("runs under an init that is not the executor, as PID 1", async () => {
    const r = await run("cat /proc/1/comm");
    expect(r.out).toMatch(/init/);
  });

  it("cannot see the host's processes or the other mounts", async () => {
    const r = await run("ps -eo user= | sort -u; ls /run/toolshed; ls /opt/toolshed");
    expect(r.out.split("\n")).toEqual(["agent", "host.sock", "executor.mjs", "file-ops.mjs"]);
    const w = await run("touch /run/toolshed/x /opt/toolshed/x 2>&1 | grep -c 'Read-only'");
    expect(w.out).toBe("2");
  });
});
