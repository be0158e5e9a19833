// suite: parallel — ps runs inside its own sandbox
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import {
  createTestProvider,
  execAsRoot,
  identitiesOf,
  serviceContainers,
  sh,
  type TestProvider,
} from "./harness.js";

// Commands start through the image's fork server (images/sandbox/spawner.c) rather than by a fork
// of the executor, and their streams are relayed by it: these pin down that everything a command
// is given is still what the executor decides, that its input and output arrive whole, and that
// nothing in the sandbox can use the fork server.
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
    const ids = await identitiesOf("ses_fork", t.serviceId);
    const agent = (await sb.exec(sh(probe))).stdout.split("\n");
    expect(agent[0]).toBe(`${ids.agent} ${ids.agent} ${ids.agent}`);
    const [sid, pgid] = agent[1]!.trim().split(/\s+/);
    expect([sid, pgid]).toEqual([agent[2], agent[2]]);
    expect(agent[3]).toMatch(/CapEff:\s+0+$/);
    const reader = (await sb.exec(sh(probe, { identity: "reader" }))).stdout.split("\n");
    const [uid, gid, groups] = reader[0]!.split(" ");
    expect(Number(uid)).toBeGreaterThanOrEqual(ids.readerBase);
    expect(Number(uid)).toBeLessThan(ids.readerBase + ids.readerCount);
    expect([gid, groups]).toEqual([`${ids.readerGroup}`, `${ids.readerGroup}`]);
    expect((await sb.exec(sh("id -u", { identity: "editor" }))).stdout).toBe(`${ids.editor}\n`);
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

  it("cannot be reached or signalled from the sandbox", async () => {
    // The streams are the spawner's pipes (no socket to connect to); its own descriptors and the
    // process are root's: the agent can neither open them through /proc nor signal it.
    const r = await sb.exec(
      sh(
        [
          "ls -d /tmp/.toolshed-spawn-* 2>/dev/null || echo no-socket",
          "s=$(pgrep -x toolshed-spawne)",
          '(exec 3>"/proc/$s/fd/0") 2>/dev/null || echo no-write',
          '(exec 3<"/proc/$s/fd/1") 2>/dev/null || echo no-read',
          'kill -9 "$s" 2>/dev/null || echo no-kill',
          "stat -L -c %F /proc/self/fd/1",
        ].join("; "),
      ),
    );
    expect(r.stdout.split("\n")).toEqual(["no-socket", "no-write", "no-read", "no-kill", "fifo", ""]);
    expect(await parentOf()).toContain("toolshed-spawner");
  });

  it("relays stdin and output whole, bytes as they are, per command, capped by the executor", async () => {
    const big = "0123456789abcdef".repeat(20_000); // 320 000 bytes: more than a pipe holds
    const counted = await sb.exec(sh("wc -c", { stdin: big }));
    expect(counted).toMatchObject({ exitCode: 0, stdout: "320000\n" });
    // A command that reads none of its stdin still ends; what was not written is dropped.
    expect((await sb.exec(sh("echo done", { stdin: big }))).stdout).toBe("done\n");
    // Text that looks like the spawner's own lines goes through as text.
    const lookalike = "O 1 1 5\nE 1 1\nX 1 0 0\n";
    expect((await sb.exec(sh("cat", { stdin: lookalike }))).stdout).toBe(lookalike);
    const capped = await sb.exec(sh("head -c 5000000 /dev/zero | tr '\\0' x", { maxOutputBytes: 100_000 }));
    expect(capped).toMatchObject({ exitCode: 0, truncated: true });
    expect(capped.stdout).toBe("x".repeat(100_000));
    // Readers run side by side: each one's output stays its own.
    const outs = await Promise.all(
      ["a", "b", "c"].map((c) =>
        sb.exec(sh(`for i in $(seq 2000); do echo ${c}; done`, { identity: "reader" })),
      ),
    );
    expect(outs.map((o) => o.stdout)).toEqual(["a", "b", "c"].map((c) => `${c}\n`.repeat(2000)));
  });

  it("waits for output written after the command exited, by whatever still holds its streams", async () => {
    const r = await sb.exec(sh("(sleep 0.3; echo late; echo late-err >&2) & echo early"));
    expect(r).toMatchObject({ exitCode: 0, stdout: "early\nlate\n", stderr: "late-err\n" });
    // Meanwhile the next command started and ended by itself.
    expect((await sb.exec(sh("echo next"))).stdout).toBe("next\n");
  });

  it("adopts what a command leaves behind, and the calls still report it until it is gone", async () => {
    // A double fork: the shell that started the sleep ends first, so it is an orphan at once.
    const left = await sb.exec(sh("(setsid sleep 611 >/dev/null 2>&1 </dev/null &); true"));
    expect(left).toMatchObject({ exitCode: 0, leftoverCount: 1 });
    const pid = left.leftover?.[0]?.pid;
    expect(pid).toEqual(expect.any(Number));
    // Its parent is the fork server, not the init: a live process of a command is always the fork
    // server's child or below one, which is what lets a call's end skip reading all of /proc.
    const parent = await sb.exec(
      sh(`tr '\\0' ' ' </proc/$(awk '/^PPid/ {print $2}' /proc/${pid}/status)/cmdline`),
    );
    expect(parent.stdout).toContain("toolshed-spawner");
    // A later call started it no more than this one; once it is killed, nothing is left to report.
    const next = await sb.exec(sh("echo next"));
    expect(next.leftoverCount).toBeUndefined();
    expect(
      (await sb.exec(sh(`kill ${pid}; while kill -0 ${pid} 2>/dev/null; do sleep 0.05; done`))).exitCode,
    ).toBe(0);
    // The fork server reaped it (no zombie is left for the init), and the call after leaves nothing.
    const after = await sb.exec(sh("ps -eo stat=,args= | grep -c '^Z' || true"));
    expect(after).toMatchObject({ stdout: "0\n" });
    expect(after.leftoverCount).toBeUndefined();
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
  // A lost fork server (started again, bounded, and Node's spawn past the bound): spawner-restart.int.test.ts.
});
