// suite: parallel — ps runs inside its own sandbox
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { createTestProvider, sh, type TestProvider } from "./harness.js";

// A hostile command against the fork server that relays its streams (images/sandbox/spawner.c):
// one that floods from a background writer after it exited, closes its streams, or tries to
// trace the spawner. The output cap, the timeout's kill and the spawner's isolation must hold,
// and the next command must run as usual.
describe("fork server under a hostile command", () => {
  let t: TestProvider;
  let sb: Sandbox;

  beforeAll(async () => {
    t = await createTestProvider();
    sb = await t.provider.acquire({ sessionId: "ses_spawnatk", tenantId: "ten_a" });
  });
  afterAll(async () => t?.cleanup());

  const left = async (name: string) =>
    (await sb.exec(sh(`pgrep -x ${name} >/dev/null && echo left || echo none`))).stdout;

  it("a background writer in its own session flooding after the command exited: capped, killed at the timeout", async () => {
    const r = await sb.exec(
      sh("setsid sh -c 'exec yes flood' & echo early", { maxOutputBytes: 10_000, timeoutMs: 1500 }),
    );
    expect(r.truncated).toBe(true);
    expect(r.stdout.startsWith("early\n")).toBe(true);
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(10_000);
    // It never ended by itself: the timeout ended the call and killed the writer, session and all.
    expect(r.timedOut).toBe(true);
    expect(await left("yes")).toBe("none\n");
    expect((await sb.exec(sh("echo next"))).stdout).toBe("next\n");
  });

  it("a command that closes its streams still ends with its exit code; one that hangs so is killed", async () => {
    expect(await sb.exec(sh("exec >&- 2>&- <&-; sleep 0.2; exit 3"))).toMatchObject({
      exitCode: 3,
      stdout: "",
      stderr: "",
    });
    const hung = await sb.exec(sh("exec >&- 2>&-; exec sleep 737", { timeoutMs: 500 }));
    expect(hung).toMatchObject({ timedOut: true });
    const ps = (await sb.exec({ argv: ["ps", "-eo", "args="], timeoutMs: 5000, maxOutputBytes: 65536 }))
      .stdout;
    expect(ps).not.toContain("sleep 737");
  });

  it("a flood does not hold up other commands' output through the shared relay", async () => {
    const order: string[] = [];
    const mark =
      <T>(name: string) =>
      (r: T) => {
        order.push(name);
        return r;
      };
    const flood = sb
      .exec(sh("exec yes flood", { maxOutputBytes: 1000, timeoutMs: 3000 }))
      .then(mark("flood"));
    const readers = Array.from({ length: 3 }, (_, i) =>
      sb.exec(sh(`sleep 0.2; echo r${i}`, { identity: "reader" })).then(mark(`r${i}`)),
    );
    const outs = await Promise.all(readers);
    expect(outs.map((o) => o.stdout)).toEqual(["r0\n", "r1\n", "r2\n"]);
    const f = await flood;
    expect(f).toMatchObject({ timedOut: true, truncated: true });
    expect(order.at(-1)).toBe("flood");
  });

  it("the agent cannot ptrace, stop or read the memory of the spawner", async () => {
    const script = [
      "import ctypes, os, subprocess",
      "pid = int(subprocess.check_output(['pgrep', '-x', 'toolshed-spawne']).split()[0])",
      "libc = ctypes.CDLL(None, use_errno=True)",
      "print('attach', libc.ptrace(16, pid, 0, 0), ctypes.get_errno())",
      "print('seize', libc.ptrace(0x4206, pid, 0, 0), ctypes.get_errno())",
      "try:",
      "  open(f'/proc/{pid}/mem', 'rb').read(1); print('mem read')",
      "except OSError as e: print('mem', e.errno)",
      "try:",
      "  os.kill(pid, 19); print('stopped')",
      "except OSError as e: print('stop', e.errno)",
    ].join("\n");
    const r = await sb.exec(sh(`python3 -c "$S"`, { env: { S: script } }));
    expect(r.stdout.split("\n"), r.stderr).toEqual(["attach -1 1", "seize -1 1", "mem 13", "stop 1", ""]);
    expect((await sb.exec(sh("echo alive"))).stdout).toBe("alive\n");
  });

  // attack31 against the restart (spawner29): a command that could end the spawner 6 times a minute
  // would have later commands start at oom_score_adj 0 (Node's spawn) and its read-only calls end
  // "may have partly run". Neither the agent nor a reader can end it or lower its limits: it stays the
  // same process. A command can take its own adj back to 0 (the spawner set 1000 without
  // CAP_SYS_RESOURCE, as the vfork child did before), never below, and the next command has 1000.
  it.each(["agent", "reader"] as const)(
    "%s cannot end the spawner, limit it, or go below adj 0",
    async (identity) => {
      const spawnerPid = async () => (await sb.exec(sh("pgrep -x toolshed-spawne"))).stdout.trim();
      const pid = await spawnerPid();
      expect(pid).toMatch(/^\d+$/);
      const attack = [
        `kill -9 ${pid}; echo kill=$?`,
        `kill -TERM -${pid}; echo group=$?`,
        `prlimit --pid ${pid} --nproc=1 2>/dev/null; echo prlimit=$?`,
        `echo -1 > /proc/self/oom_score_adj 2>/dev/null; echo adj=$?`,
      ].join("; ");
      const r = await sb.exec(sh(attack, { identity }));
      for (const refused of ["kill=1", "group=1", "prlimit=1", "adj=1"])
        expect(r.stdout, `${identity}: ${r.stdout}${r.stderr}`).toContain(refused);
      expect(await spawnerPid()).toBe(pid);
      expect((await sb.exec(sh("cat /proc/self/oom_score_adj", { identity }))).stdout).toBe("1000\n");
    },
  );

  // fd 0 of a command given no stdin: /dev/null, read-only, and its own open of it (an open
  // file's flags are shared by every copy of its descriptor: one shared by all commands would let
  // one set O_NONBLOCK or O_APPEND for every later command, of any identity).
  const flagsOf0 = async (identity?: "reader") =>
    (
      await sb.exec(
        sh("readlink /proc/self/fd/0; grep ^flags /proc/self/fdinfo/0", identity ? { identity } : {}),
      )
    ).stdout;

  it("a command without stdin: fd 0 is /dev/null, read-only, and a flag one command sets on it does not reach the next", async () => {
    const before = await flagsOf0();
    expect(before).toMatch(/^\/dev\/null\nflags:\s+0?[0-7]*0\n$/);
    const w = await sb.exec(sh("echo x >&0 && echo wrote || echo refused"));
    expect(w.stdout).toBe("refused\n");
    // O_NONBLOCK (and O_APPEND, O_NOATIME...) are flags of the open file, shared by every copy.
    const set = await sb.exec({
      argv: [
        "python3",
        "-c",
        "import fcntl,os; fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK | os.O_APPEND); print(oct(fcntl.fcntl(0, fcntl.F_GETFL)))",
      ],
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(set.exitCode).toBe(0);
    expect(await flagsOf0()).toBe(before);
    expect(await flagsOf0("reader")).toBe(before);
  });
});
