// suite: parallel — ps and pkill run inside its own sandbox
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OutputStream, Sandbox } from "../../src/sandbox/sandbox.js";
import { createTestProvider, execAsRoot, serviceContainers, sh, type TestProvider } from "./harness.js";

describe("sandbox exec", () => {
  let t: TestProvider;
  let sb: Sandbox;

  beforeAll(async () => {
    t = await createTestProvider();
    sb = await t.provider.acquire({ sessionId: "ses_exec", tenantId: "ten_a" });
  });
  afterAll(async () => t?.cleanup());

  /** Processes of the sandbox other than the init, the executor and the `ps` itself. */
  const strays = async () => {
    const r = await sb.exec({ argv: ["ps", "-eo", "pid=,args="], timeoutMs: 5000, maxOutputBytes: 65536 });
    return r.stdout
      .split("\n")
      .filter(
        (l) => l.trim() && !/docker-init|executor\.mjs|file-helper\.mjs|toolshed-spawner|ps -eo/.test(l),
      );
  };

  it("returns exit code, stdout and stderr separately", async () => {
    const r = await sb.exec(sh("echo out; echo err >&2; exit 3"));
    expect(r).toMatchObject({
      exitCode: 3,
      stdout: "out\n",
      stderr: "err\n",
      timedOut: false,
      truncated: false,
    });
  });

  it("serves a session's calls over the same connections, replies and all", async () => {
    const [info] = await serviceContainers(t.serviceId, "ses_exec");
    // The executor's sockets (its host connections and the file helper's channel), by inode.
    const sockets = async (name: string) => {
      const list = `ls -l /proc/$(pgrep -f '^node /opt/toolshed/executor.mjs')/fd | grep -o 'socket:.[0-9]*.' | sort`;
      await execAsRoot(info!.Id, ["sh", "-c", `${list} > /tmp/${name}; chmod 644 /tmp/${name}`]);
      return (await sb.exec(sh(`cat /tmp/${name}`))).stdout;
    };
    const before = await sockets("before");
    expect(before).toMatch(/socket/);
    for (let i = 0; i < 5; i++) {
      expect((await sb.exec(sh(`echo ${i}`))).stdout).toBe(`${i}\n`);
      expect(await sb.stat("/workspace")).toMatchObject({ type: "directory" });
    }
    expect(await sockets("after")).toBe(before);
  });

  it("passes stdin, env and cwd, and runs in /workspace by default", async () => {
    const r = await sb.exec(sh("pwd; echo $GREETING; cat", { stdin: "from stdin", env: { GREETING: "hi" } }));
    expect(r.stdout).toBe("/workspace\nhi\nfrom stdin");
    const c = await sb.exec(sh("pwd", { cwd: "/tmp" }));
    expect(c.stdout).toBe("/tmp\n");
  });

  it("reports a program that cannot be spawned as exit 127", async () => {
    const r = await sb.exec({ argv: ["no-such-program"], timeoutMs: 5000, maxOutputBytes: 1000 });
    expect(r.exitCode).toBe(127);
    expect(r.stderr).toMatch(/ENOENT/);
    const c = await sb.exec(sh("true", { cwd: "/workspace/missing" }));
    expect(c).toMatchObject({ exitCode: 127, stderr: "cwd /workspace/missing: no such directory\n" });
  });

  it("kills the whole process group on timeout and keeps the partial output", async () => {
    const r = await sb.exec(sh("echo before; sleep 1000 & sleep 1000", { timeoutMs: 2000 }));
    expect(r).toMatchObject({ exitCode: null, stdout: "before\n", timedOut: true, cancelled: false });
    expect(await strays()).toEqual([]);
  });

  it("returns in bounded time even when a process escaped the group holding the pipes", async () => {
    const r = await sb.exec(sh("echo x; setsid sleep 1000", { timeoutMs: 1000 }));
    expect(r.timedOut).toBe(true);
    expect(r.stdout).toBe("x\n");
    // It left the group, not the agent's uid: it is gone too.
    expect(r.killed).toBeGreaterThanOrEqual(1);
    expect(await strays()).toEqual([]);
  });

  it("kills what detached from the call on timeout: setsid, double fork, nohup", async () => {
    const r = await sb.exec(
      sh(
        "setsid sleep 777 & (sleep 778 &) ; nohup sleep 779 >/dev/null 2>&1 & " +
          "setsid bash -c 'while :; do :; done' >/dev/null 2>&1 & disown; echo up; sleep 100",
        { timeoutMs: 1500 },
      ),
    );
    expect(r).toMatchObject({ timedOut: true, stdout: "up\n" });
    expect(await strays()).toEqual([]);
  });

  it("reports what a call left running after a normal end, and a read-only call leaves nothing", async () => {
    const r = await sb.exec(sh("setsid sleep 555 >/dev/null 2>&1 < /dev/null & echo done"));
    expect(r.exitCode).toBe(0);
    expect(r.leftoverCount).toBe(1);
    // Under load the job may still be the forked shell, not yet the sleep: the pid is what holds.
    const pid = r.leftover?.[0]?.pid;
    expect(pid).toEqual(expect.any(Number));
    expect((await sb.exec(sh(`cat /proc/${pid}/cmdline | tr '\\0' ' '`))).stdout).toMatch(/sleep 555/);
    const ro = await sb.exec(
      sh("setsid sleep 556 >/dev/null 2>&1 < /dev/null & echo done", { identity: "reader" }),
    );
    expect(ro.exitCode).toBe(0);
    expect(ro.killed).toBeGreaterThanOrEqual(1);
    expect((await strays()).filter((l) => l.includes("sleep 556"))).toEqual([]);
    await sb.exec(sh("pkill -f 'sleep 555'; true"));
  });

  it("cancels on abort: the group is killed and the result says cancelled", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const r = await sb.exec(sh("echo go; sleep 1000", { signal: ac.signal }));
    expect(r).toMatchObject({ exitCode: null, stdout: "go\n", cancelled: true, timedOut: false });
    expect(await strays()).toEqual([]);
  });

  it("a cancel or timeout that comes while the fork server still holds the start is applied when it arrives", async () => {
    // The fork server holds a command's start (its pid) up to 5 ms for more to send with it:
    // a cancel or a timeout in that window finds no pid yet and must be kept, not lost. Aborted
    // at once and after 1-4 ms (at least one lands in the window); a lost one would run the
    // command to its one-minute timeout.
    for (const identity of ["agent", "reader"] as const) {
      for (const after of [0, 1, 2, 3, 4]) {
        const ac = new AbortController();
        const run = sb.exec(sh("exec sleep 737", { signal: ac.signal, timeoutMs: 60_000, identity }));
        setTimeout(() => ac.abort(), after);
        expect(await run, `${identity}, cancelled after ${after} ms`).toMatchObject({
          exitCode: null,
          cancelled: true,
          timedOut: false,
        });
      }
      const timedOut = await sb.exec(sh("exec sleep 738", { timeoutMs: 1, identity }));
      expect(timedOut, identity).toMatchObject({ exitCode: null, timedOut: true, cancelled: false });
    }
    expect((await strays()).filter((l) => /sleep 73[78]/.test(l))).toEqual([]);
  });

  it("read-only git works as usual but runs no program named in the repository's configuration", async () => {
    const setup = [
      "rm -rf /workspace/r && git init -q /workspace/r && cd /workspace/r",
      "git config user.email a@b && git config user.name a",
      "echo '*.txt diff=tc filter=fl' > .gitattributes && echo a > a.txt && git add -A && git commit -qm1",
      "git config diff.tc.textconv 'touch /tmp/tc-ran; cat' && git config filter.fl.clean 'touch /tmp/fl-ran; cat'",
      "git config core.fsmonitor 'touch /tmp/fsm-ran; true' && echo b >> a.txt",
    ].join(" && ");
    expect((await sb.exec(sh(setup))).exitCode).toBe(0);
    const ro = await sb.exec(
      sh("cd /workspace/r && git status --short && git diff && git log -p --oneline | head -n 20", {
        identity: "reader",
      }),
    );
    expect(ro.stdout).toMatch(/^ M a\.txt$/m);
    expect(ro.stdout).toMatch(/^\+b$/m);
    expect((await sb.exec(sh("ls /tmp/*-ran 2>/dev/null | wc -l"))).stdout.trim()).toBe("0");
    await sb.exec(sh("cd /workspace/r && git config diff.external 'touch /tmp/ext-ran'"));
    const ext = await sb.exec(
      sh("cd /workspace/r && git diff && git -C /workspace/r show --stat HEAD", { identity: "reader" }),
    );
    expect(ext.exitCode).toBe(0);
    expect(ext.stdout).toMatch(/^\+b$/m);
    expect((await sb.exec(sh("ls /tmp/*-ran 2>/dev/null | wc -l"))).stdout.trim()).toBe("0");
  });

  it("streams output before the command ends", async () => {
    // The command cannot finish until the gate file exists, and the test opens the gate only
    // once the first chunk has reached it: without streaming, "b" is never printed.
    const seen: { stream: OutputStream; data: string }[] = [];
    let opened: Promise<unknown> | undefined;
    const r = await sb.exec(
      sh("echo a; for i in $(seq 300); do [ -e gate ] && echo b && exit 0; sleep 0.1; done; echo closed", {
        onOutput: (stream, data) => {
          seen.push({ stream, data });
          opened ??= sb.writeFile("gate", "");
        },
      }),
    );
    await opened;
    expect(seen[0]).toMatchObject({ stream: "stdout", data: "a\n" });
    expect(r.stdout).toBe("a\nb\n");
  });

  it("caps 200 MB of output without buffering it in the service", async () => {
    const before = process.memoryUsage().rss;
    const cap = 64 * 1024;
    let streamed = 0;
    const r = await sb.exec(
      sh("head -c 200000000 /dev/zero | tr '\\0' a; echo done >&2", {
        maxOutputBytes: cap,
        timeoutMs: 60_000,
        onOutput: (_s, d) => {
          streamed += d.length;
        },
      }),
    );
    const growth = process.memoryUsage().rss - before;
    expect(r.exitCode).toBe(0);
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBe(cap);
    expect(r.stdout).toMatch(/^a+$/);
    expect(r.stderr).toBe("done\n");
    expect(streamed).toBe(cap + "done\n".length);
    expect(growth).toBeLessThan(50 * 1024 * 1024);
  });

  it("runs commands in C.UTF-8, loaded from the image's locale archive", async () => {
    // The archive is what spares each command's start a dozen opens and mappings (images/build.sh);
    // what a command sees is C.UTF-8 as before: characters, not bytes.
    expect((await sb.exec(sh("localedef --list-archive"))).stdout.split("\n")).toContain("C.utf8");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not a template.
    const r = await sb.exec(sh('x=héllo; echo "${#x} $(locale | grep LC_CTYPE)"'));
    expect(r).toMatchObject({ exitCode: 0, stdout: '5 LC_CTYPE="C.UTF-8"\n', stderr: "" });
  });

  it("starts bash as Debian's static build of the same bash: no shared library to map", async () => {
    const r = await sb.exec(
      sh(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not a template.
        'grep -c "[.]so" /proc/$$/maps; echo "$BASH ${BASH_VERSINFO[0]}"; /bin/bash.dynamic -c \'echo "${BASH_VERSION}"\'',
      ),
    );
    const [libraries, shell, dynamicVersion] = r.stdout.trim().split("\n");
    expect(libraries).toBe("0");
    expect(shell).toBe("/usr/bin/bash 5");
    // The same release as the dynamic binary it replaces.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own ${…}, not a template.
    expect((await sb.exec(sh('echo "${BASH_VERSION}"'))).stdout.trim()).toBe(dynamicVersion);
  });

  it("caps on byte boundaries without breaking UTF-8 text", async () => {
    const r = await sb.exec(sh("printf 'é%.0s' $(seq 1 100)", { maxOutputBytes: 11 }));
    expect(r.truncated).toBe(true);
    expect(r.stdout).toBe("ééééé");
  });

  it("runs calls of one session concurrently", async () => {
    // Each call prints when it started and ended (the container's clock): they overlap when
    // every start comes before the earliest end. No wall-clock bound on the host.
    const rs = await Promise.all(
      [1, 2, 3, 4].map((i) => sb.exec(sh(`date +%s%N; sleep 1; date +%s%N; echo ${i}`))),
    );
    expect(rs.map((r) => r.stdout.split("\n")[2])).toEqual(["1", "2", "3", "4"]);
    const spans = rs.map((r) => r.stdout.split("\n").slice(0, 2).map(BigInt));
    const [earliestEnd] = spans.map(([, end]) => end!).sort((a, b) => (a < b ? -1 : 1));
    for (const [start] of spans) expect(start! < earliestEnd!).toBe(true);
  });

  it("reaps zombies", async () => {
    // The orphaned grandchild is reparented to the fork server (PID 1 without it), which must
    // reap it once it exits.
    await sb.exec(sh("(sleep 0.2 &) ; true"));
    await new Promise((r) => setTimeout(r, 600));
    const r = await sb.exec(sh("ps -eo stat= | grep -c '^Z' || true"));
    expect(r.stdout.trim()).toBe("0");
  });
});
