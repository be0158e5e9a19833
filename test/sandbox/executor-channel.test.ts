/**
 * The host end of the executor protocol, against a scripted executor on a real unix socket: a
 * protocol-3 connection serves request after request (no dial, no proof per request), an older
 * executor's connection is closed after its answer, and a connection that spoke out of turn or
 * whose request was given up on is never handed out again.
 */
import { mkdtempSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { ExecutorChannel } from "../../src/sandbox/executor-channel.js";
import { execOverSocket, pingOverSocket } from "../../src/sandbox/executor-client.js";

const TOKEN = "t".repeat(40);
let channel: ExecutorChannel | undefined;
const peers: Socket[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.destroy();
  await channel?.close();
});

/** A scripted executor connection: answers each request line with `answer(request)`. */
async function dial(path: string, v: number, answer: (req: Record<string, unknown>) => object[]) {
  const sock = connect(path);
  peers.push(sock);
  const closed = new Promise<void>((r) => sock.once("close", () => r()));
  sock.on("error", () => {});
  let buf = "";
  sock.on("data", (chunk) => {
    buf += chunk.toString();
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
      const req = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      for (const m of answer(req)) sock.write(`${JSON.stringify(m)}\n`);
    }
  });
  await new Promise<void>((r) => sock.once("connect", () => r()));
  sock.write(`${JSON.stringify({ t: "hello", v, token: TOKEN, boot: "boot-1" })}\n`);
  return { sock, closed };
}

const pong = (req: Record<string, unknown>) =>
  req.op === "ping" ? [{ t: "a" }, { t: "r", boot: "boot-1" }] : [];

async function open() {
  const path = join(mkdtempSync(join(tmpdir(), "tsch-")), "host.sock");
  channel = await ExecutorChannel.listen(path, TOKEN);
  return { path, channel };
}

it("a protocol-3 connection serves one request after another", async () => {
  const { path, channel } = await open();
  await dial(path, 3, pong);
  for (let i = 0; i < 5; i++) expect(await pingOverSocket(await channel.take(1000))).toBe("boot-1");
  expect(channel.proven).toBe(1);
});

it("an older executor's connection is closed after its answer", async () => {
  const { path, channel } = await open();
  const peer = await dial(path, 2, pong);
  expect(await pingOverSocket(await channel.take(1000))).toBe("boot-1");
  await peer.closed;
  // Its only connection is gone: nothing to take until the executor dials again.
  await expect(channel.take(200)).rejects.toThrow(/no executor connection|closed every/);
});

it("a connection that speaks while idle is dropped, not handed to the next request", async () => {
  const { path, channel } = await open();
  const peer = await dial(path, 3, pong);
  expect(await pingOverSocket(await channel.take(1000))).toBe("boot-1");
  // Out of turn: this line would otherwise read as the next request's answer.
  peer.sock.write(`${JSON.stringify({ t: "r", boot: "forged" })}\n`);
  await peer.closed;
  const good = await dial(path, 3, pong);
  expect(await pingOverSocket(await channel.take(1000))).toBe("boot-1");
  expect(good.sock.destroyed).toBe(false);
});

it("an answer followed by a stray line in the same write drops the connection", async () => {
  const { path, channel } = await open();
  const peer = await dial(path, 3, (req) => [...pong(req), { t: "r", boot: "forged" }]);
  expect(await pingOverSocket(await channel.take(1000))).toBe("boot-1");
  await peer.closed;
});

it("a command given up on (cancelled) leaves its connection closed; one that ended is reused", async () => {
  const { path, channel } = await open();
  const ended = { t: "x", exitCode: 0, timedOut: false, cancelled: false, truncated: false, durationMs: 1 };
  let slow = false;
  // A slow command ends only when cancelled, as the executor answers a cancel.
  const peer = await dial(path, 3, (r) => {
    if (r.op === "cancel") return [{ ...ended, cancelled: true, exitCode: null }];
    return slow ? [{ t: "a" }] : [{ t: "a" }, ended];
  });
  const req = { argv: ["true"], timeoutMs: 5000, maxOutputBytes: 1024 };
  expect((await execOverSocket(await channel.take(1000), req)).exitCode).toBe(0);
  expect((await execOverSocket(await channel.take(1000), req)).exitCode).toBe(0);
  expect(channel.proven).toBe(1);
  slow = true;
  const ac = new AbortController();
  const run = execOverSocket(await channel.take(1000), { ...req, signal: ac.signal });
  setTimeout(() => ac.abort(), 50);
  expect((await run).cancelled).toBe(true);
  await peer.closed;
});
