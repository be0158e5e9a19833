// suite: parallel — every fork loop runs inside its own sandbox, under its pids limit
/**
 * attack31 against the pid-hopper fix (processes.mjs `killUid`): whatever a read-only call's
 * processes do to live on (fill the pids limit with a fork loop, leave their session, hold the
 * call's pipe, try to change uid), none is alive once the call has answered; a Bash call's fork
 * loop ends at its timeout. Under runc and gVisor. Every loop is bounded by the container's pids
 * limit (128 here) and by the call's timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox, SandboxIdentities } from "../../src/sandbox/sandbox.js";
import { RUNTIMES } from "../security/runtimes.js";
import { createTestProvider, identitiesOf, sh, type TestProvider } from "./harness.js";

describe.each(RUNTIMES)("a call's processes end with it under %s, whatever they try", (runtime) => {
  let t: TestProvider;
  let sb: Sandbox;
  let ids: SandboxIdentities;
  const sessionId = `ses_kill_${runtime}`;

  beforeAll(async () => {
    t = await createTestProvider({ runtime });
    sb = await t.provider.acquire({ sessionId, tenantId: "ten_kill" });
    ids = await identitiesOf(sessionId, t.serviceId);
  });
  afterAll(async () => t?.cleanup());

  /** Live (not zombie) processes whose uid is in [first, last], as "uid args" lines, or "" (scanned 4 times). */
  const alive = async (first: number, last: number): Promise<string> => {
    const scan = `for i in 1 2 3 4; do ps -eo uid=,stat=,args= | awk '$1>=${first} && $1<=${last} && $2 !~ /Z/'; sleep 0.05; done | sort -u`;
    const r = await sb.exec(sh(scan, { timeoutMs: 15_000 }));
    expect(r.exitCode, `the scan itself: ${r.stderr}`).toBe(0);
    return r.stdout.trim();
  };
  const readersAlive = () => alive(ids.readerBase, ids.readerBase + ids.readerCount - 1);
  const reader = (command: string, timeoutMs = 20_000) =>
    sb.exec(sh(command, { identity: "reader", timeoutMs }));

  // Under gVisor a fork loop is not stopped at the guest's pids: the host cgroup's limit (pids × 8)
  // is reached first and the sentry panics, so the whole sandbox exits (quota9 knew; attack31: any
  // loop does it). Its own sandbox only; the next call starts it again. Under runc it lives on.
  const sameSandboxAfter = async (before: string | undefined) => {
    expect((await sb.exec(sh("echo ok"))).stdout.trim()).toBe("ok");
    if (runtime === "runc") expect(t.provider.knownInstance(sessionId)).toBe(before);
  };

  /** A reader starts `perl -e '<loop>'` in the background: nothing of it is left once the call has answered. */
  const readerLoopGone = async (loop: string) => {
    const before = t.provider.knownInstance(sessionId);
    const started = await reader(`perl -e '${loop}' >/dev/null 2>&1 </dev/null & echo started`).then(
      (r) => (r.stdout.includes("started") ? "started" : JSON.stringify(r)),
      // Under gVisor the loop may take the sandbox down before the call answers (above).
      (err: Error) => (runtime === "runsc" ? "sandbox exited" : String(err)),
    );
    expect(["started", runtime === "runsc" ? "sandbox exited" : "started"]).toContain(started);
    expect(await readersAlive()).toBe("");
    await sameSandboxAfter(before);
  };

  it("a reader's fork loop that fills the pids limit is gone when the call answers", async () => {
    await readerLoopGone("fork while 1");
  }, 90_000);

  // Killed pid by pid (the pids limit is full, so no `kill -9 -1` can be started), a loop refilled
  // each freed slot faster than it was emptied (CI, round 17): its processes are stopped first. One
  // that continues every stopped sibling while it forks must not outrun that either.
  it("a reader's fork loop that continues its stopped siblings is gone when the call answers", async () => {
    await readerLoopGone(`while (1) { fork; kill "CONT", -1 }`);
  }, 90_000);

  it("a reader's daemons (setsid, double fork, a kept pipe) are gone when the call answers", async () => {
    const r = await reader(
      "setsid sleep 901 >/dev/null 2>&1 </dev/null & (sleep 902 >/dev/null 2>&1 </dev/null &) ; " +
        "setsid perl -e 'fork and exit; sleep 903' ; setsid sleep 904 & echo started",
    );
    expect(r.stdout).toContain("started");
    expect(await readersAlive()).toBe("");
  }, 60_000);

  it("a reader cannot change its uid (no capability), so the uid it is killed by holds", async () => {
    const r = await reader(
      "grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status; perl -e '$< = $> = 0; print \"uid=$<\\n\"'; " +
        "python3 -c 'import os; os.setresuid(0, 0, 0)' 2>&1 | tail -1",
    );
    expect(r.stdout).toMatch(/CapEff:\s+0{16}/);
    expect(r.stdout).toMatch(/CapPrm:\s+0{16}/);
    expect(r.stdout).not.toContain("uid=0");
    expect(r.stdout).toMatch(/PermissionError|Operation not permitted/);
  }, 60_000);

  // A fork loop keeps the container's CPU busy: the executor (nice 0) must still get enough of it
  // to answer, time out and kill. Commands run at nice 10 and, under runc, cannot lower it (no
  // CAP_SYS_NICE).
  it("commands run below the executor's CPU weight and cannot raise themselves", async () => {
    const probe = `perl -e 'print getpriority(0, 0), " ", (setpriority(0, 0, 0) ? "raised" : "refused"), "\\n"'`;
    // gVisor lets any task lower its nice value, which its sentry ignores anyway (it schedules the
    // guest itself): there only the value is checked.
    const want = runtime === "runc" ? "10 refused" : /^10 /;
    for (const r of [await sb.exec(sh(probe)), await reader(probe)]) expect(r.stdout.trim()).toMatch(want);
  }, 60_000);

  it("a Bash call's fork loop ends at its timeout, and the sandbox answers again", async () => {
    const before = t.provider.knownInstance(sessionId);
    const ended = await sb.exec(sh("perl -e 'fork while 1'; sleep 100", { timeoutMs: 3000 })).then(
      (r) => (r.timedOut ? "timed out" : JSON.stringify(r)),
      (err: Error) => (runtime === "runsc" ? "sandbox exited" : String(err)),
    );
    expect(["timed out", runtime === "runsc" ? "sandbox exited" : "timed out"]).toContain(ended);
    expect(await alive(ids.agent, ids.agent)).not.toContain("perl");
    await sameSandboxAfter(before);
  }, 90_000);
});
