import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ExecutorChannel } from "../../src/sandbox/executor-channel.js";
import { execOverSocket, statOverSocket } from "../../src/sandbox/executor-client.js";
import { LineSplitter } from "../../src/sandbox/line-splitter.js";
import type { ExecRequest } from "../../src/sandbox/sandbox.js";

// A connection whose request the executor answered cleanly carries the next request, instead of
// being closed and replaced by a new dial, a new accept and a new hello. These drive the host end
// against a stand-in executor on the real socket and pin down when a connection may be reused.
const TOKEN = "t".repeat(40);
const req: ExecRequest = { argv: ["true"], timeoutMs: 5_000, maxOutputBytes: 1024 };

/** A stand-in executor connection: proves itself, then records requests and answers as told. */
interface FakeExecutor {
  sock: Socket;
  requests: Record<string, unknown>[];
  closed: Promise<void>;
  /** Set before the request arrives: the lines written for it. */
  answer: (msg: Record<string, unknown>) => string[];
}

async function dialIn(socketPath: string): Promise<FakeExecutor> {
  const sock = connect(socketPath);
  await new Promise<void>((resolve) => sock.once("connect", () => resolve()));
  const fake: FakeExecutor = {
    sock,
    requests: [],
    closed: new Promise<void>((resolve) => sock.once("close", () => resolve())),
    answer: () => [],
  };
  const splitter = new LineSplitter(1 << 20, (line) => {
    const msg = JSON.parse(line) as Record<string, unknown>;
    fake.requests.push(msg);
    for (const out of fake.answer(msg)) sock.write(`${out}\n`);
  });
  sock.on("data", (chunk: Buffer) => splitter.push(chunk));
  sock.on("error", () => {});
  sock.write(`${JSON.stringify({ t: "hello", v: 2, token: TOKEN, boot: "boot-1" })}\n`);
  return fake;
}

const exitLine = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ t: "x", exitCode: 0, timedOut: false, cancelled: false, truncated: false, ...extra });

describe("executor connections", () => {
  let dir: string;
  let channel: ExecutorChannel;
  let fake: FakeExecutor;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "exec-reuse-"));
    const socketPath = join(dir, "host.sock");
    channel = await ExecutorChannel.listen(socketPath, TOKEN);
    fake = await dialIn(socketPath);
    await channel.ready(5_000);
  });
  afterEach(async () => {
    fake.sock.destroy();
    await channel.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("carry the next request once the last one was answered cleanly, exec and file ops alike", async () => {
    fake.answer = (msg) =>
      msg.op === "exec"
        ? ['{"t":"a"}', '{"t":"o","s":1,"d":"hi\\n"}', exitLine()]
        : ['{"t":"a"}', '{"t":"r","stat":{"type":"file","size":1,"mtimeMs":1}}'];
    const first = await channel.take(1_000);
    expect(await execOverSocket(first, req)).toMatchObject({ exitCode: 0, stdout: "hi\n" });
    const second = await channel.take(1_000);
    expect(second).toBe(first);
    expect(await statOverSocket(second, "/workspace/a")).toMatchObject({ type: "file", size: 1 });
    expect(await execOverSocket(await channel.take(1_000), req)).toMatchObject({ stdout: "hi\n" });
    // Three requests, one connection, and it is still open.
    expect(fake.requests.map((r) => r.op)).toEqual(["exec", "stat", "exec"]);
    expect(fake.sock.destroyed).toBe(false);
  });

  it("are closed when anything follows the answer", async () => {
    fake.answer = () => ['{"t":"a"}', exitLine(), '{"t":"o","s":1,"d":"late"}'];
    const sock = await channel.take(1_000);
    expect((await execOverSocket(sock, req)).exitCode).toBe(0);
    await fake.closed;
    expect(sock.destroyed).toBe(true);
  });

  it("are closed after a cancel, even when the answer came", async () => {
    // The cancel crosses the answer: the executor could read it as the next request's line.
    const ac = new AbortController();
    fake.answer = (msg) => {
      if (msg.op !== "exec") return [];
      ac.abort();
      return ['{"t":"a"}', exitLine({ exitCode: null, cancelled: true })];
    };
    const sock = await channel.take(1_000);
    const r = await execOverSocket(sock, { ...req, signal: ac.signal });
    expect(r.cancelled).toBe(true);
    await fake.closed;
    expect(fake.requests.map((m) => m.op)).toEqual(["exec", "cancel"]);
  });

  it("are closed when the request failed", async () => {
    fake.answer = () => ['{"t":"a"}', '{"t":"?"}'];
    const sock = await channel.take(1_000);
    await expect(execOverSocket(sock, req)).rejects.toThrow(/unexpected message/);
    await fake.closed;
  });
});
