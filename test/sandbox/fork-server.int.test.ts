import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { createTestProvider, execAsRoot, serviceContainers, sh, type TestProvider } from "./harness.js";

// Commands start through the image's fork server (images/sandbox/spawner.c) rather than by a fork
// of the executor: these pin down that everything a command is given is still what the executor
// decides, that nothing in the sandbox can use the fork server, and that the executor carries on
// with Node's spawn once the fork server is gone.
describe("sandbox fork server", () => {
  let t: TestProvider;
  let sb: Sandbox;

  beforeAll(async () => {
    t = await createTestProvider();
    sb = await t.provider.acquire({ sessionId: "ses_fork", tenantId: "ten_a" });
  });
  afterAll(async () => t?.cleanup());

  const parentOf = async (identity?: "reader" | "editor") =>
    (await sb.exec(sh("tr '\\0' ' ' </proc/$PPID/cmdline", { identity }))).stdout;

  it("starts commands, as their identity, in their own session, with no capability", async () => {
    expect(await parentOf()).toContain("toolshed-spawner");
    const probe =
      'echo "$(id -u) $(id -g) $(id -G)"; ps -o sid=,pgid= -p $$; echo $$; grep CapEff /proc/self/status';
    const agent = (await sb.exec(sh(probe))).stdout.split("\n");
    expect(agent[0]).toBe("100000 100000 100000");
    const [sid, pgid] = agent[1]!.trim().split(/\s+/);
    expect([sid, pgid]).toEqual([agent[2], agent[2]]);
    expect(agent[3]).toMatch(/CapEff:\s+0+$/);
    const reader = (await sb.exec(sh(probe, { identity: "reader" }))).stdout.split("\n");
    const [uid, gid, groups] = reader[0]!.split(" ");
    expect(Number(uid)).toBeGreaterThanOrEqual(100010);
    expect([gid, groups]).toEqual(["100001", "100001"]);
    expect((await sb.exec(sh("id -u", { identity: "editor" }))).stdout).toBe("100003\n");
  });

  it("passes stdin, env and the cwd descriptor as asked, and nothing else", async () => {
    const r = await sb.exec(
      sh("cat; echo $GREETING; cd /tmp; pwd -P >&9", {
        stdin: "in\n",
        env: { GREETING: "hi" },
        reportCwd: true,
      }),
    );
    expect(r).toMatchObject({ exitCode: 0, stdout: "in\nhi\n", cwd: "/tmp" });
    // `ls` holds 3 for the directory it lists; 0-2 are the streams, 9 the cwd report when asked.
    const fds = async (reportCwd: boolean) =>
      (
        await sb.exec({ argv: ["ls", "/proc/self/fd"], timeoutMs: 5000, maxOutputBytes: 4096, reportCwd })
      ).stdout
        .trim()
        .split("\n");
    expect(await fds(false)).toEqual(["0", "1", "2", "3"]);
    expect(await fds(true)).toEqual(["0", "1", "2", "3", "9"]);
  });

  it("says why a command could not start", async () => {
    const missing = await sb.exec({ argv: ["no-such-command"], timeoutMs: 5000, maxOutputBytes: 4096 });
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toContain("ENOENT");
    const noCwd = await sb.exec(sh("true", { cwd: "/workspace/not-there" }));
    expect(noCwd).toMatchObject({ exitCode: 127, stderr: "cwd /workspace/not-there: no such directory\n" });
    // The chdir happens as the identity: a reader cannot enter the agent's private home.
    const home = await sb.exec(sh("true", { cwd: "/home/agent", identity: "reader" }));
    expect(home.exitCode).toBe(127);
    expect(home.stderr).toContain("EACCES");
  });

  it("cannot be reached, moved or signalled from the sandbox", async () => {
    const r = await sb.exec(
      sh(
        [
          "d=$(ls -d /tmp/.toolshed-spawn-*)",
          'stat -c "%U %a" "$d"',
          'python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])" "$d/s" 2>&1 | tail -n1',
          'mv "$d" /tmp/moved 2>/dev/null || echo no-move',
          "kill -9 $(pgrep -x toolshed-spawne) 2>/dev/null || echo no-kill",
        ].join("; "),
      ),
    );
    expect(r.stdout.split("\n")).toEqual([
      "root 700",
      expect.stringContaining("PermissionError"),
      "no-move",
      "no-kill",
      "",
    ]);
    expect(await parentOf()).toContain("toolshed-spawner");
  });

  it("ends a call whose start hangs in the fork server, and kills the command if it starts late", async () => {
    const [info] = await serviceContainers(t.serviceId, "ses_fork");
    await execAsRoot(info!.Id, ["sh", "-c", "kill -STOP $(pgrep -x toolshed-spawne)"]);
    const r = await sb.exec(sh("sleep 731", { timeoutMs: 300 }));
    await execAsRoot(info!.Id, ["sh", "-c", "kill -CONT $(pgrep -x toolshed-spawne)"]);
    expect(r).toMatchObject({ timedOut: true, exitCode: null });
    // Once resumed, the fork server starts the command after all: the executor kills it at once.
    let left = "sleep 731";
    for (let i = 0; i < 50 && left.includes("sleep 731"); i++)
      left = (await sb.exec({ argv: ["ps", "-eo", "args="], timeoutMs: 5000, maxOutputBytes: 65536 })).stdout;
    expect(left).not.toContain("sleep 731");
    expect((await sb.exec(sh("echo ok"))).stdout).toBe("ok\n");
  });

  it("carries on with Node's spawn when the fork server is gone", async () => {
    const [info] = await serviceContainers(t.serviceId, "ses_fork");
    await execAsRoot(info!.Id, ["sh", "-c", "kill -9 $(pgrep -x toolshed-spawne)"]);
    // The executor notices the exit asynchronously; a call in between may still be refused by it
    // and then fall back, so poll for the parent to be the executor.
    let parent = "";
    for (let i = 0; i < 50 && !parent.includes("executor.mjs"); i++) parent = await parentOf();
    expect(parent).toContain("executor.mjs");
    const r = await sb.exec(sh("echo still; id -u"));
    expect(r).toMatchObject({ exitCode: 0, stdout: "still\n100000\n" });
    const timedOut = await sb.exec(sh("sleep 30", { timeoutMs: 300 }));
    expect(timedOut.timedOut).toBe(true);
  });
});
