import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "../support/wait-for-job.js";

// The executor skips reading /proc after a call when the fork server proves that nothing it
// started is alive (fork-server.mjs#nothingAlive). Stand-ins for the spawner, real processes read
// through this machine's /proc, pin down when that proof may be given.
interface ForkServerLike {
  adopted: unknown;
  pending: Map<string, unknown>;
  proc: { pid?: number; kill?: (signal: string) => void } | null;
  start(bin: string): Promise<boolean>;
  onLine(line: string): void;
  nothingAlive(): boolean;
}
const modulePath = "../../src/sandbox/executor/fork-server.mjs";
const { ForkServer } = (await import(modulePath)) as { ForkServer: new () => ForkServerLike };

describe("fork server: nothing alive", () => {
  let dir: string;
  const started: ChildProcess[] = [];
  const servers: ForkServerLike[] = [];
  const told = (server: ForkServerLike) =>
    pollUntil(
      () => server.adopted,
      (adopted) => adopted !== null,
      { timeoutMs: 10_000, intervalMs: 10, what: "the stand-in's R line" },
    );

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fork-alive-"));
  });
  afterAll(async () => {
    for (const p of started) p.kill("SIGKILL");
    for (const s of servers) s.proc?.kill?.("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  /** A stand-in spawner: a shell script run by ForkServer.start. */
  const standIn = async (name: string, body: string): Promise<ForkServerLike> => {
    const bin = join(dir, name);
    await writeFile(bin, `#!/bin/sh\n${body}\n`);
    await chmod(bin, 0o755);
    const server = new ForkServer();
    expect(await server.start(bin)).toBe(true);
    servers.push(server);
    return server;
  };

  it("is proved only by a spawner that adopts orphans and has no child", async () => {
    expect(new ForkServer().nothingAlive()).toBe(false);
    const lone = await standIn("lone", "printf 'R\\n'; exec sleep 60");
    await told(lone);
    expect(lone.nothingAlive()).toBe(true);
    // An older spawner does not adopt: what a command leaves goes to the init, out of its sight.
    const older = await standIn("older", "exec sleep 60");
    expect(older.nothingAlive()).toBe(false);
    // Any child at all (here one that survives the exec) may be, or hold, a live process.
    const parent = await standIn("parent", "printf 'R\\n'; sleep 61 & exec sleep 60");
    await told(parent);
    expect(parent.nothingAlive()).toBe(false);
  });

  it("is told by the spawner's X line while it has started nothing since, with no /proc read", async () => {
    // This stand-in has a child the whole time: whenever the proof is given, its word gave it.
    const server = await standIn("word", "printf 'R\\n'; sleep 62 & exec sleep 60");
    await told(server);
    expect(server.nothingAlive()).toBe(false);
    server.onLine("X 4242 0 0 1");
    expect(server.nothingAlive()).toBe(true);
    // A start told after that exit (P) was made after that reap: alive, as far as the word goes.
    server.onLine("P 77 4243");
    expect(server.nothingAlive()).toBe(false);
    server.onLine("X 4243 0 0 1");
    expect(server.nothingAlive()).toBe(true);
    // A start on its way may have been made (and the spawner died before telling it).
    server.pending.set("78", {});
    expect(server.nothingAlive()).toBe(false);
    server.pending.delete("78");
    // A later reap that left a child takes the word back; an older spawner's X says nothing.
    server.onLine("X 4244 0 0 0");
    expect(server.nothingAlive()).toBe(false);
    server.onLine("X 4245 0 0");
    expect(server.nothingAlive()).toBe(false);
  });

  it("is not proved by a spawner that exited and is not yet reaped", async () => {
    // A zombie's children list is empty (they went to the init when it exited): its memory is
    // gone (statm reads zeros), so it adopts nothing any more. `sleep 1` here becomes a zombie that `sleep 60` never waits for
    // (it ends after the shell became `sleep 60`: a shell still running would reap it first).
    const holder = spawn("/bin/sh", ["-c", "sleep 1 & echo $!; exec sleep 60"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    started.push(holder);
    const zombie = await new Promise<number>((resolve) =>
      holder.stdout!.once("data", (b: Buffer) => resolve(Number(b.toString().trim()))),
    );
    const server = new ForkServer();
    server.proc = { pid: zombie };
    await pollUntil(
      () => readFileSync(`/proc/${zombie}/stat`, "latin1"),
      (stat) => stat.includes(") Z "),
      { timeoutMs: 10_000, intervalMs: 10, what: "the zombie" },
    );
    server.onLine("R");
    expect(server.adopted).not.toBeNull();
    expect(server.nothingAlive()).toBe(false);
  });
  it("is not proved through a spawner that was reaped (its pid may be another process's by then)", async () => {
    // The children list and statm are read through descriptors opened when R came: they name that
    // process, not its number, so once it is reaped they fail to read, whatever has the pid now.
    const spawner = spawn("/bin/sh", ["-c", "exec sleep 60"], { stdio: "ignore" });
    started.push(spawner);
    const server = new ForkServer();
    server.proc = { pid: spawner.pid! };
    await pollUntil(
      () => readFileSync(`/proc/${spawner.pid}/cmdline`, "latin1"),
      (cmd) => cmd.startsWith("sleep"),
      { timeoutMs: 10_000, intervalMs: 10, what: "the stand-in's exec" },
    );
    server.onLine("R");
    expect(server.nothingAlive()).toBe(true);
    const reaped = new Promise((r) => spawner.once("exit", r));
    spawner.kill("SIGKILL");
    await reaped;
    expect(server.adopted).not.toBeNull();
    expect(server.nothingAlive()).toBe(false);
  });
});
