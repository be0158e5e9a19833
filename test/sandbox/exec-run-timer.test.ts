import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { pollUntil } from "../support/wait-for-job.js";

// A call's timeout timer must be gone once the call is over, whichever way it ended: an agent's
// call is answered before its bookkeeping clears the timer (exec-run.mjs#conclude), in the same
// turn; a reader's or editor's is cleared before its uid is emptied and given back (finish), so a
// timeout cannot fire on a uid another call has leased since (kill → killUid of that uid). Here
// the executor's fork server is fed the spawner's lines by hand (its stdin a sink), so each end
// comes in one read, exactly when the test says.
interface Final {
  t: string;
  exitCode: number | null;
  timedOut?: boolean;
}
interface RunLike {
  final: Final | null;
  timer?: { _destroyed?: boolean };
  attach(sock: object, replay: boolean): void;
}
interface ForkServerLike {
  proc: object | null;
  seq: number;
  onData(buf: Buffer): void;
  lost(): void;
}
const forkServerPath = "../../src/sandbox/executor/fork-server.mjs";
const execRunPath = "../../src/sandbox/executor/exec-run.mjs";
const { forkServer } = (await import(forkServerPath)) as { forkServer: ForkServerLike };
const { ExecRun } = (await import(execRunPath)) as {
  ExecRun: new (req: object, who: object, opts: object) => RunLike;
};

// A uid and pid no process has: nothing on this machine can be found or killed under them.
const NOBODY = 1_999_999_999;
const PID = 1_999_999;

function fakeSpawner(): void {
  // Starts are answered by each test's feed; a kill of a uid (K id uid gid), at once: it ran.
  const stdin = new Writable({
    write: (chunk: Buffer, _e, cb) => {
      const [kind, id] = chunk.subarray(4).toString("latin1").split("\0");
      if (kind === "K") setImmediate(() => feed(`K ${id} 1\n`));
      cb();
    },
  });
  forkServer.proc = { pid: PID, stdin, kill() {} };
}

function call(name: "agent" | "reader", onRelease?: () => void) {
  const answers: string[] = [];
  const sock = {
    destroyed: false,
    write() {},
    on() {},
    off() {},
    once() {},
    toolshedDone: (line: string) => answers.push(line),
  };
  const who = {
    name,
    uid: NOBODY,
    gid: NOBODY,
    identity: { home: "/home/agent" },
    ...(onRelease ? { release: onRelease } : {}),
  };
  const run = new ExecRun({ argv: ["true"], timeoutMs: 60_000, maxOutputBytes: 1000 }, who, {
    keyed: false,
    resolveCwd: () => "/",
    leftovers: new Set(),
  });
  run.attach(sock, false);
  return { run, answers, id: String(forkServer.seq) };
}

const feed = (text: string) => forkServer.onData(Buffer.from(text, "latin1"));
const armed = (run: RunLike) => run.timer !== undefined && run.timer._destroyed !== true;
// The start request goes out at once; its answer, at the earliest, in a microtask.
const started = () => new Promise<void>((r) => setImmediate(r));

describe("ExecRun: no timeout timer left once a call is over", () => {
  afterEach(() => {
    forkServer.lost();
  });

  it("an agent's command that ends at once (start, ends and exit in one read)", async () => {
    fakeSpawner();
    const { run, answers, id } = call("agent");
    await started();
    expect(armed(run)).toBe(true);
    feed(`P ${id} ${PID}\nE ${id} 1\nE ${id} 2\nX ${PID} 0 0\n`);
    // Answered within that read, its timer cleared in the same turn.
    expect(answers).toHaveLength(1);
    expect(run.final).toMatchObject({ t: "x", exitCode: 0, timedOut: false });
    expect(armed(run)).toBe(false);
  });

  it("an agent's command the fork server refused (F)", async () => {
    fakeSpawner();
    const { run, answers, id } = call("agent");
    await started();
    feed(`F ${id} 2 exec\n`);
    await pollUntil(
      () => answers.length,
      (n) => n === 1,
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    expect(run.final).toMatchObject({ t: "x", exitCode: 127 });
    expect(armed(run)).toBe(false);
  });

  it("an agent's command whose fork server died between its start and its exit", async () => {
    fakeSpawner();
    const { run, answers, id } = call("agent");
    await started();
    feed(`P ${id} ${PID}\n`);
    expect(armed(run)).toBe(true);
    forkServer.lost();
    await pollUntil(
      () => answers.length,
      (n) => n === 1,
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    expect(run.final).toMatchObject({ t: "x", exitCode: null, timedOut: false });
    expect(armed(run)).toBe(false);
  });

  it("a reader's: cleared before its uid is given back", async () => {
    fakeSpawner();
    let armedAtRelease: boolean | undefined;
    const c = call("reader", () => {
      armedAtRelease = armed(c.run);
    });
    await started();
    feed(`P ${c.id} ${PID}\nE ${c.id} 1\nE ${c.id} 2\nX ${PID} 0 0\n`);
    await pollUntil(
      () => c.answers.length,
      (n) => n === 1,
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    expect(c.run.final).toMatchObject({ t: "x", exitCode: 0, timedOut: false });
    expect(armedAtRelease).toBe(false);
    expect(armed(c.run)).toBe(false);
  });
});
