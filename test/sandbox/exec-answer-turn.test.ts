import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "../support/wait-for-job.js";
import { agentRunOfTrue } from "./agent-exec-run.js";
import { startStandIn } from "./stand-in-spawner.js";

// A short command's start, streams' ends and exit come from the fork server in one read. The
// executor hands the command to its call as the start line is read (fork-server.mjs#begin), so an
// agent call that ended by itself is answered within that read's callback: no promise job, no
// lines kept for a later hand-over. Stand-in spawner as in exec-output-batch.test.ts.
interface ForkServerLike {
  proc: { kill?: (signal: string) => void } | null;
  start(bin: string): Promise<boolean>;
  onData(buf: Buffer): void;
}
const forkServerPath = "../../src/sandbox/executor/fork-server.mjs";
const { forkServer } = (await import(forkServerPath)) as { forkServer: ForkServerLike };

describe("executor: the answer to a short command", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "exec-turn-"));
    const lines = "printf 'P 1 %s\\nE 1 1\\nE 1 2\\nX %s 0 0\\n' $$ $$";
    expect(await startStandIn(forkServer, dir, lines)).toBe(true);
  });
  afterAll(async () => {
    forkServer.proc?.kill?.("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("is written within the read that brought its start and end", async () => {
    const answered: string[] = [];
    const sock = {
      destroyed: false,
      on() {},
      off() {},
      once() {},
      toolshedDone: (line: string) => answered.push(line),
    };
    // What was answered when the callback of the read that brought the exit returned, before
    // any promise job ran (the stand-in writes its lines at once; a pipe may still split them).
    const atExit: number[] = [];
    const onData = forkServer.onData.bind(forkServer);
    forkServer.onData = (buf: Buffer) => {
      onData(buf);
      if (/(^|\n)X /.test(buf.toString("latin1"))) atExit.push(answered.length);
    };
    const run = agentRunOfTrue(sock);
    await pollUntil(
      () => run.final,
      (f) => f !== null,
      { timeoutMs: 10_000, intervalMs: 10, what: "the answer" },
    );
    expect(run.final).toMatchObject({ t: "x", exitCode: 0 });
    expect(answered).toHaveLength(1);
    expect(atExit).toEqual([1]);
  });
});
