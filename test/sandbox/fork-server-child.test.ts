import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "../support/wait-for-job.js";
import { agentRunOfTrue } from "./agent-exec-run.js";

// A command started by the fork server is handed to ExecRun as a ChildProcess look-alike whose
// streams are plain relays, not Readable streams (fork-server.mjs). What ExecRun relies on is
// pinned here with stand-in spawners (shell scripts printing the spawner's lines once the start
// request's first byte is in): output kept until the hand-over and given in order, 'exit' before
// 'close', a destroyed stream counting as ended, and a character split between two chunks.
type Listener = (...args: unknown[]) => void;
interface RelayLike {
  on(event: "data", fn: (buf: Buffer) => void): RelayLike;
  destroy(): void;
}
interface ChildLike {
  pid: number;
  stdout: RelayLike;
  stderr: RelayLike;
  stdio: (RelayLike | undefined)[];
  once(event: string, fn: Listener): void;
  handOver(): void;
}
interface ForkServerLike {
  proc: { kill?: (signal: string) => void } | null;
  start(bin: string): Promise<boolean>;
  spawn(req: object): Promise<ChildLike | null>;
}
const forkServerPath = "../../src/sandbox/executor/fork-server.mjs";
const { ForkServer, forkServer } = (await import(forkServerPath)) as {
  ForkServer: new () => ForkServerLike;
  forkServer: ForkServerLike;
};

const START = { argv: ["true"], env: [], uid: 100000, gid: 100000, cwd: "/" };

describe("fork server: a forked command as ExecRun sees it", () => {
  let dir: string;
  const servers: ForkServerLike[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fork-child-"));
  });
  afterAll(async () => {
    for (const s of servers) s.proc?.kill?.("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  /** A stand-in spawner answering the first start request with `lines` (printf format). */
  const standIn = async (name: string, lines: string, server = new ForkServer()) => {
    const bin = join(dir, name);
    await writeFile(
      bin,
      `#!/bin/sh\nprintf 'R\\n'; head -c 1 >/dev/null\nprintf '${lines}' $$ $$\nexec sleep 60\n`,
    );
    await chmod(bin, 0o755);
    expect(await server.start(bin)).toBe(true);
    servers.push(server);
    return server;
  };

  /** Everything the child tells its caller, in order, once handed over. */
  const record = (child: ChildLike) => {
    const seen: string[] = [];
    child.stdout.on("data", (b) => seen.push(`1:${b.toString()}`));
    child.stderr.on("data", (b) => seen.push(`2:${b.toString()}`));
    child.once("exit", (code) => seen.push(`exit ${code}`));
    child.once("close", (code) => seen.push(`close ${code}`));
    child.handOver();
    return seen;
  };

  it("gives what came before the hand-over in order, then 'exit', then 'close'", async () => {
    const server = await standIn(
      "whole",
      "P 1 %s\\nO 1 1 2\\na\\nO 1 2 2\\nb\\nO 1 1 2\\nc\\nE 1 1\\nE 1 2\\nX %s 3 0\\n",
    );
    const child = await server.spawn(START);
    expect(child).not.toBeNull();
    // Every line is in already (the spawner sends a short command whole): handed over after them.
    await new Promise((r) => setTimeout(r, 200));
    const seen = record(child!);
    expect(seen).toEqual(["1:a\n", "1:c\n", "2:b\n", "exit 3", "close 3"]);
  });

  it("closes once its streams are destroyed, without their ends", async () => {
    // Started and exited; its streams are held by something it left, so no E comes.
    const server = await standIn("held", "P 1 %s\\nO 1 1 3\\nhi\\nX %s 0 0\\n");
    const child = await server.spawn(START);
    await new Promise((r) => setTimeout(r, 200));
    const seen = record(child!);
    expect(seen).toEqual(["1:hi\n", "exit 0"]);
    child!.stdout.destroy();
    expect(seen).toEqual(["1:hi\n", "exit 0"]);
    child!.stderr.destroy();
    expect(seen).toEqual(["1:hi\n", "exit 0", "close 0"]);
    // Destroyed: what comes later is dropped.
    child!.stdout.destroy();
    expect(seen).toHaveLength(3);
  });

  it("decodes a character split between two chunks of output", async () => {
    // "é" is C3 A9: its first byte ends one O line's bytes, its second starts the next one's.
    await standIn(
      "split",
      "P 1 %s\\nO 1 1 1\\n\\303O 1 1 2\\n\\251\\nE 1 1\\nE 1 2\\nX %s 0 0\\n",
      forkServer,
    );
    const lines: string[] = [];
    const sock = {
      destroyed: false,
      write: (line: string) => lines.push(line),
      cork() {},
      uncork() {},
      on() {},
      off() {},
      once() {},
      toolshedDone: (line: string) => lines.push(line),
    };
    const run = agentRunOfTrue(sock);
    await pollUntil(
      () => run.final,
      (final) => final !== null,
      { timeoutMs: 10_000, intervalMs: 10, what: "the answer" },
    );
    const events = lines
      .join("")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { t: string; d?: string });
    const out = events
      .filter((e) => e.t === "o")
      .map((e) => e.d)
      .join("");
    expect(out).toBe("é\n");
    expect(events.every((e) => !e.d?.includes("\ufffd"))).toBe(true);
    expect(run.final).toMatchObject({ t: "x", exitCode: 0 });
  });
});
