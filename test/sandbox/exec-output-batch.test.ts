import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "../support/wait-for-job.js";
import { agentRunOfTrue } from "./agent-exec-run.js";
import { startStandIn } from "./stand-in-spawner.js";

// The executor writes a command's output and the answer that follows it in the same turn of its
// event loop to the host in one write (exec-run.mjs), so the host reads them in one wake-up. A
// stand-in fork server answers a start with the whole of a short command at once, as the real one
// does (images/sandbox/spawner.c); the host's connection is a stream that records each write.
// The start is handed to its call as its P line is read (fork-server.mjs#begin), so that answer
// is written within the callback of the read that brought the command's end: no promise job, no
// lines kept for a later hand-over.
interface ForkServerLike {
  proc: { kill?: (signal: string) => void } | null;
  start(bin: string): Promise<boolean>;
  lost(): void;
  onData(buf: Buffer): void;
}
const forkServerPath = "../../src/sandbox/executor/fork-server.mjs";
const { forkServer } = (await import(forkServerPath)) as { forkServer: ForkServerLike };

describe("executor: a command's output and its answer", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "exec-batch-"));
    // Once the start request's first byte is in: started, "hi" on stdout, both streams ended, exited 0.
    const lines = "printf 'P 1 %s\\nO 1 1 3\\nhi\\nE 1 1\\nE 1 2\\nX %s 0 0\\n' $$ $$";
    expect(await startStandIn(forkServer, dir, lines)).toBe(true);
  });
  afterAll(async () => {
    forkServer.proc?.kill?.("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("reach the host in one write", async () => {
    const writes: string[][] = [];
    const sock = Object.assign(
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          writes.push([chunk.toString()]);
          cb();
        },
        writev(chunks, cb) {
          writes.push(chunks.map((c) => String(c.chunk)));
          cb();
        },
      }),
      {
        toolshedDone: (line: string) => {
          answered++;
          sock.write(line);
        },
      },
    );
    // Answers written when the callback of the read that brought the exit returned (the stand-in
    // writes its lines at once; a pipe may still split them).
    let answered = 0;
    const atExit: number[] = [];
    const onData = forkServer.onData.bind(forkServer);
    forkServer.onData = (buf: Buffer) => {
      onData(buf);
      if (/(^|\n)X /.test(buf.toString("latin1"))) atExit.push(answered);
    };
    const run = agentRunOfTrue(sock);
    await pollUntil(
      () => writes.flat().join(""),
      (text) => text.includes('"t":"x"'),
      { timeoutMs: 10_000, intervalMs: 10, what: "the answer" },
    );
    expect(run.final).toMatchObject({ t: "x", exitCode: 0 });
    expect(atExit).toEqual([1]);
    expect(writes).toHaveLength(1);
    const lines = writes[0]!.join("").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { t: "o", s: 1, d: "hi\n" },
      expect.objectContaining({ t: "x", exitCode: 0 }),
    ]);
  });
});
