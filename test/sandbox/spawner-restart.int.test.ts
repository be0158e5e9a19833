// suite: parallel — the spawner it kills is its own sandbox's
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { createTestProvider, execAsRoot, serviceContainers, sh, type TestProvider } from "./harness.js";

// The fork server (images/sandbox/spawner.c) can die under the executor: the OOM killer picks it
// (it is first in the OOM order), or it crashes. The executor starts it again (bounded), the
// calls it had on its hands end saying their exit is unknown (never a hang, never a made-up
// exit), and the next command goes through the new one. Killed here as the container's root.
const LOST = "toolshed: the sandbox's process starter stopped before this command's end was seen";

describe("a lost fork server", () => {
  let t: TestProvider;
  let sb: Sandbox;
  let container: string;

  beforeAll(async () => {
    t = await createTestProvider();
    sb = await t.provider.acquire({ sessionId: "ses_respawn", tenantId: "ten_a" });
    container = (await serviceContainers(t.serviceId, "ses_respawn"))[0]!.Id;
  });
  afterAll(async () => t?.cleanup());

  const asRoot = (script: string) => execAsRoot(container, ["sh", "-c", script]);
  const killSpawner = () => asRoot("kill -9 $(pgrep -x toolshed-spawne)");

  /** The pid and command line of what started a command (a reader's: no agent leftovers). */
  const parent = async () => {
    const r = await sb.exec(sh("echo $PPID $(tr '\\0' ' ' </proc/$PPID/cmdline)", { identity: "reader" }));
    const [pid, ...cmd] = r.stdout.trim().split(" ");
    return { pid: Number(pid), cmd: cmd.join(" "), exitCode: r.exitCode, stderr: r.stderr };
  };

  let restarts = 0;

  /**
   * Calls until one is started by a fork server other than `old` (its pid), or null once `ms`
   * have passed without one. The calls between go through Node's spawn, or (a start written to
   * the dying spawner) end as unknown: never anything else.
   */
  const backWithin = async (old: number, ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const p = await parent();
      if (p.cmd.includes("toolshed-spawner") && p.pid !== old) {
        restarts++;
        return p.pid;
      }
      if (!p.cmd.includes("executor.mjs")) expect(p).toMatchObject({ exitCode: null });
    }
    return null;
  };
  const nextSpawner = async (old: number) => {
    const pid = await backWithin(old, 20_000);
    expect(pid).not.toBeNull();
    return pid;
  };

  it("is started again between two calls, and the next command goes through it, first in the OOM order", async () => {
    const first = await parent();
    expect(first.cmd).toContain("toolshed-spawner");
    await killSpawner();
    await nextSpawner(first.pid);
    const r = await sb.exec(sh("cat /proc/self/oom_score_adj; echo $(tr '\\0' ' ' </proc/$PPID/cmdline)"));
    expect(r).toMatchObject({ exitCode: 0, stdout: "1000\n/usr/local/libexec/toolshed-spawner\n" });
  });

  it("ends a running command's call as unknown, and still tells apart the leftovers of later calls", async () => {
    const { pid: old } = await parent();
    const running = sb.exec(sh("echo started; exec sleep 743", { timeoutMs: 60_000 }));
    let ps = "";
    for (let i = 0; i < 50 && !ps.includes("sleep 743"); i++)
      ps = (await sb.exec(sh("ps -eo args=", { identity: "reader" }))).stdout;
    expect(ps).toContain("sleep 743");
    await killSpawner();
    const lost = await running;
    expect(lost).toMatchObject({ exitCode: null, timedOut: false, stdout: "started\n" });
    expect(lost.stderr).toContain(LOST);
    expect(lost.leftover?.map((p) => p.cmd)).toEqual(["sleep 743"]);
    await nextSpawner(old);
    // The sleep is the init's now, out of the new spawner's sight: a call through the new one must
    // still see it (its "nothing alive" proof no longer holds), or the next call that leaves
    // something would take the old sleep for its own.
    expect((await sb.exec(sh("true"))).leftover).toBeUndefined();
    const left = await sb.exec(sh("(setsid sleep 744 >/dev/null 2>&1 </dev/null &); true"));
    // (Its command line may still be setsid's, before its exec, or even the subshell's, before that:
    // commands run below the executor's CPU weight, so its scan can come first.)
    expect(left.leftover?.map((p) => p.cmd)).toEqual([expect.stringMatching(/sleep 744( |$)/)]);
    await sb.exec(sh("pkill -x sleep; true"));
  });

  it("ends as unknown a call whose start the spawner took and never told", async () => {
    const { pid: old } = await parent();
    // Stopped, it reads no request: the start is on its way when it dies.
    await asRoot("kill -STOP $(pgrep -x toolshed-spawne)");
    const pending = sb.exec(sh("echo never", { timeoutMs: 60_000 }));
    await new Promise((r) => setTimeout(r, 1000));
    await killSpawner();
    const r = await pending;
    expect(r).toMatchObject({ exitCode: null, timedOut: false, stdout: "" });
    expect(r.stderr).toContain(LOST);
    await nextSpawner(old);
  });

  // Last: the sandbox stays on Node's spawn for the rest of the minute.
  it("is started again at most five times a minute, then commands go through Node's spawn", async () => {
    let { pid } = await parent();
    let killed = 0;
    for (; killed < 8; killed++) {
      await killSpawner();
      const next = await backWithin(pid, 3000);
      if (next === null) break;
      pid = next;
    }
    // The earlier cases' restarts count too (this minute's): five in all, the sixth loss stays.
    expect(restarts).toBe(5);
    expect((await parent()).cmd).toContain("executor.mjs");
    const r = await sb.exec(sh("echo still; cat /proc/self/oom_score_adj"));
    expect(r).toMatchObject({ exitCode: 0, stdout: "still\n0\n" });
    expect((await sb.exec(sh("sleep 30", { timeoutMs: 300 }))).timedOut).toBe(true);
  });
});
