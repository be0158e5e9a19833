/**
 * A hostile client against the JSON body read straight from Node's stream (json-depth.ts):
 * no auth, lying lengths, an aborted body, odd content types, invalid UTF-8, empty bodies.
 * Every answer is a 4xx JSON error (or the success), never a 500, never a hang.
 */

import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_KEY, createApiTestApp } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";
import { pollUntil } from "../support/wait-for-job.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let server: ServerType;
let port: number;

beforeAll(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  // `x-slow-auth` stands for a key check that waits on real I/O (Postgres): the client can go
  // away before the body is read.
  const fetch: typeof t.app.fetch = async (req, env) => {
    if (req.headers.get("x-slow-auth")) await new Promise((r) => setTimeout(r, 300));
    return t.app.fetch(req, env);
  };
  server = serve({ fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((r) => server.once("listening", () => r()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  (server as import("node:http").Server).closeAllConnections();
  await new Promise((r) => server.close(r));
  t.close();
});

const LIMIT = 64 * 1024;
const AUTH = `authorization: Bearer ${ADMIN_KEY}\r\n`;

interface Answer {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

/** Parses the first response on `socket`: resolves once its head and declared body are in. */
function firstResponse(socket: Socket): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buf.subarray(0, end).toString();
      const status = Number(head.split(" ")[1]);
      const rest = buf.subarray(end + 4);
      const length = /content-length: (\d+)/i.exec(head);
      let text: string | undefined;
      if (length) {
        if (rest.length < Number(length[1])) return;
        text = rest.subarray(0, Number(length[1])).toString();
      } else if (/transfer-encoding: chunked/i.test(head)) {
        const s = rest.toString();
        if (!s.includes("\r\n0\r\n\r\n")) return;
        text = s
          .split("\r\n")
          .filter((_, i) => i % 2 === 1)
          .join("");
      } else return;
      socket.off("data", onData);
      resolve({ status, body: text ? JSON.parse(text) : {} });
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.once("close", () => reject(new Error(`closed before a response: ${buf.toString()}`)));
  });
}

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => resolve(s));
    s.once("error", reject);
  });
}

/** Sends a request head then `parts` (written as given), returns the first response. */
/** The socket is dropped after the answer, so a body left unterminated never ends. */
async function send(head: string, parts: (string | Buffer)[] = []): Promise<Answer> {
  const s = await open();
  const answer = firstResponse(s);
  answer.catch(() => {});
  s.write(head);
  for (const p of parts) s.write(p);
  try {
    return await answer;
  } finally {
    s.destroy();
  }
}

const chunk = (b: string | Buffer) => [`${Buffer.byteLength(b).toString(16)}\r\n`, b, "\r\n"];

it("without a key: 401 before the body is read, even a body that never ends", async () => {
  // Chunked, never terminated: the answer must come without the body.
  const a = await send(
    "POST /v1/tenants HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
    chunk('{"name":"'),
  );
  expect(a.status).toBe(401);
  expect(a.body.error?.code).toBeTruthy();
  // A declared length over the limit without a key: refused, 4xx, without reading it.
  const b = await send(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${LIMIT * 100}\r\n\r\n`,
    ["{"],
  );
  expect([401, 413]).toContain(b.status);
});

it("a body sent slowly arrives whole; one larger than the limit sent chunked is 413", async () => {
  const s = await open();
  const answer = firstResponse(s);
  s.write(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
  );
  for (const part of ['{"na', 'me":"sl', 'ow"}']) {
    for (const c of chunk(part)) s.write(c);
    await new Promise((r) => setTimeout(r, 200));
  }
  s.write("0\r\n\r\n");
  const a = await answer;
  s.destroy();
  expect(a.status, JSON.stringify(a.body)).toBe(201);
  expect(a.body.name).toBe("slow");

  const big = Buffer.alloc(LIMIT * 4, "x");
  const b = await send(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
    [...chunk('{"name":"'), ...chunk(big)],
  );
  expect(b.status).toBe(413);
  expect(b.body.error?.code).toBe("PAYLOAD_TOO_LARGE");
});

it("a lying content-length: shorter than sent is answered; a body cut by the client frees the request", async () => {
  // Declares 14 bytes, sends more: the first 14 are the body; the rest is not a request, which
  // Node's parser answers 400 and closes (it may do so before the first answer is written).
  const a = await send(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ncontent-length: 14\r\n\r\n`,
    ['{"name":"lie"}garbage garbage'],
  ).catch((e: Error) => ({ status: /HTTP\/1.1 (\d+)/.exec(e.message)?.[1], body: {} }));
  expect([201, "400"]).toContain(a.status);

  // Declares 1000 bytes, sends 10, then drops the connection: the server must not be left with
  // a pending read (the request ends; later requests are answered).
  const s = await open();
  s.write(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ncontent-length: 1000\r\n\r\n{"name":"a`,
  );
  await new Promise((r) => setTimeout(r, 100));
  s.destroy();
  const after = await send(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ncontent-length: 16\r\n\r\n`,
    ['{"name":"after"}'],
  );
  expect(after.status).toBe(201);
  // The cut body is the client's doing: not counted or logged as the service's own 500.
  await new Promise((r) => setTimeout(r, 50));
  expect(await t.deps.metrics.render()).not.toMatch(/toolshed_http_requests_total\{[^}]*status="5\d\d"/);
});

it("content types: charset and upper case work; other +json types and lookalikes are a 4xx, never a 500", async () => {
  const body = (name: string) => JSON.stringify({ name });
  const post = (type: string, name: string) =>
    send(
      `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: ${type}\r\ncontent-length: ${Buffer.byteLength(body(name))}\r\n\r\n`,
      [body(name)],
    );
  const charset = await post("application/json; charset=utf-8", "charset");
  expect(charset.status, JSON.stringify(charset.body)).toBe(201);
  const upper = await post("APPLICATION/JSON", "upper");
  expect(upper.status, JSON.stringify(upper.body)).toBeLessThan(500);
  for (const type of [
    "application/vnd.x+json",
    "application/jsonx",
    "application/json-seq",
    "text/plain",
    "",
  ]) {
    const r = await post(type, `t-${type}`);
    expect(r.status, `${type}: ${JSON.stringify(r.body)}`).toBeLessThan(500);
    if (r.status >= 400) expect(r.body.error?.code, type).toBeTruthy();
  }
});

it("invalid UTF-8, empty bodies and a GET with a body: a 4xx or the plain answer, never a 500", async () => {
  const bad = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]);
  const a = await send(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ncontent-length: ${bad.length}\r\n\r\n`,
    [bad],
  );
  expect(a.status, JSON.stringify(a.body)).toBeLessThan(500);
  const empty = await send(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ncontent-length: 0\r\n\r\n`,
  );
  expect(empty.status).toBe(400);
  expect(empty.body.error?.code).toBe("VALIDATION");
  const emptyChunked = await send(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n`,
  );
  expect(emptyChunked.status).toBe(400);
  expect(emptyChunked.body.error?.code).toBe("VALIDATION");
  const get = await send(
    `GET /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ncontent-length: 2\r\n\r\n`,
    ["{}"],
  );
  expect(get.status).toBe(200);
});

it("a client gone while its key was checked: the request still ends (a 400 in the log), never left pending", async () => {
  const count = async () =>
    Number(
      /toolshed_http_requests_total\{method="POST",status="400"\} (\d+)/.exec(
        await t.deps.metrics.render(),
      )?.[1] ?? 0,
    );
  const before = await count();
  const s = await open();
  s.write(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}x-slow-auth: 1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"name":"a`,
  );
  await new Promise((r) => setTimeout(r, 50));
  s.destroy();
  await pollUntil(count, (n) => n > before, { timeoutMs: 5000, what: "the cut request's 400" });
});

it("a compressed body (Content-Encoding) is never inflated: a 415 saying to send it plain, a gzip bomb included", async () => {
  const { gzipSync } = await import("node:zlib");
  // 60 KiB on the wire that would inflate to 64 MiB.
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
  expect(bomb.length).toBeLessThan(LIMIT);
  for (const [encoding, body] of [
    ["gzip", gzipSync('{"name":"zipped"}')],
    ["gzip", bomb],
    ["deflate", Buffer.from("x")],
    ["br", Buffer.from("x")],
  ] as const) {
    const a = await send(
      `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ncontent-encoding: ${encoding}\r\ncontent-length: ${body.length}\r\n\r\n`,
      [body],
    );
    expect(a.status, `${encoding}: ${JSON.stringify(a.body)}`).toBe(415);
    expect(a.body.error?.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(a.body.error?.message).toMatch(/Content-Encoding/);
  }
  // `identity` is no encoding.
  const plain = '{"name":"plain-identity"}';
  const ok = await send(
    `POST /v1/tenants HTTP/1.1\r\nhost: x\r\n${AUTH}content-type: application/json\r\ncontent-encoding: identity\r\ncontent-length: ${plain.length}\r\n\r\n`,
    [plain],
  );
  expect(ok.status, JSON.stringify(ok.body)).toBe(201);
});
