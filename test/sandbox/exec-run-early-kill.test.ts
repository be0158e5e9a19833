import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "../support/wait-for-job.js";
import { startStandIn } from "./stand-in-spawner.js";

// A timeout or cancel that comes while the fork server is still starting the command is kept
// (killPending) and applied at the hand-over. An agent call whose command ended by itself is
// answered in the hand-over's turn (exec-run.mjs finish), so when the start answer and the
// command's whole end come in one read, the pending kill must be applied before that answer:
// else the call is answered as an ordinary completion, neither timed out nor cancelled, and what
// it left running is not killed. Stand-in spawner as in fork-server-child.test.ts: it announces R
// (so no /proc scan finds anything), waits past the call's 1 ms timeout, then sends the start,
// the streams' ends and the exit in one write.
interface RunLike {
  final: { t: string; exitCode: number | null; timedOut?: boolean; cancelled?: boolean } | null;
  attach(sock: object, replay: boolean): void;
}
const forkServerPath = "../../src/sandbox/executor/fork-server.mjs";
const execRunPath = "../../src/sandbox/executor/exec-run.mjs";
const { forkServer } = (await import(forkServerPath)) as {
  forkServer: { proc: { kill?: (s: string) => void } | null; start(bin: string): Promise<boolean> };
};
const { ExecRun } = (await import(execRunPath)) as {
  ExecRun: new (req: object, who: object, opts: object) => RunLike;
};

describe("ExecRun: a kill that came before the hand-over", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "early-kill-"));
    expect(
      await startStandIn(forkServer, dir, "sleep 0.3; printf 'P 1 %s\\nE 1 1\\nE 1 2\\nX %s 0 0\\n' $$ $$"),
    ).toBe(true);
  });
  afterAll(async () => {
    forkServer.proc?.kill?.("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("answers a call whose timeout fired before the start as timed out", async () => {
    const sock = {
      destroyed: false,
      write() {},
      cork() {},
      uncork() {},
      on() {},
      off() {},
      once() {},
      toolshedDone() {},
    };
    // A uid no process has: nothing on this machine can be found or killed under it.
    const run = new ExecRun(
      { argv: ["true"], timeoutMs: 1, maxOutputBytes: 1000 },
      { name: "agent", uid: 1_999_999_999, gid: 1_999_999_999, identity: { home: "/home/agent" } },
      { keyed: false, resolveCwd: () => "/", leftovers: new Set() },
    );
    run.attach(sock, false);
    const final = await pollUntil(
      () => run.final,
      (f) => f !== null,
      { timeoutMs: 10_000, intervalMs: 10, what: "the answer" },
    );
    expect(final).toMatchObject({ t: "x", timedOut: true, cancelled: false });
  });
});
