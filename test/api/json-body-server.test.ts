/**
 * Under a real server a JSON body is read straight from Node's stream (json-depth.ts), not
 * through a fetch Request: the same answers as through `app.request` (the other API tests)
 * must hold there, for a declared length, an undeclared (chunked) one, nesting, bad JSON and a
 * byte-order mark.
 */
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_KEY, createApiTestApp } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let server: ServerType;
let port: number;

beforeAll(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  server = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((r) => server.once("listening", () => r()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  t.close();
});

/** POSTs `chunks` to `path`; `declare` sends a content-length, else the body goes chunked. */
function post(
  path: string,
  chunks: (string | Buffer)[],
  declare: boolean,
): Promise<{
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}> {
  return new Promise((resolve, reject) => {
    const total = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: {
          authorization: `Bearer ${ADMIN_KEY}`,
          "content-type": "application/json",
          ...(declare ? { "content-length": String(total) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    // The server may answer (413) and close before the whole body is sent.
    req.on("error", reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

const LIMIT = 64 * 1024;

it("creates from a body sent with its length, or chunked, or after a byte-order mark", async () => {
  const a = await post("/v1/tenants", [JSON.stringify({ name: "declared" })], true);
  expect(a.status, JSON.stringify(a.body)).toBe(201);
  expect(a.body.name).toBe("declared");
  const b = await post("/v1/tenants", ['{"name":', '"chunked"}'], false);
  expect(b.status, JSON.stringify(b.body)).toBe(201);
  expect(b.body.name).toBe("chunked");
  const bom = await post("/v1/tenants", [Buffer.from([0xef, 0xbb, 0xbf]), '{"name":"bom"}'], true);
  expect(bom.status, JSON.stringify(bom.body)).toBe(201);
  expect(bom.body.name).toBe("bom");
  // Multi-byte characters split across chunks are decoded whole.
  const euro = Buffer.from('{"name":"€uro"}');
  const split = await post("/v1/tenants", [euro.subarray(0, 10), euro.subarray(10)], false);
  expect(split.body.name).toBe("€uro");
});

it("413 past the limit, declared or not; 400 for bad JSON and for nesting past 100", async () => {
  const big = JSON.stringify({ name: "x".repeat(LIMIT) });
  const declared = await post("/v1/tenants", [big], true);
  expect(declared.status).toBe(413);
  expect(declared.body.error?.code).toBe("PAYLOAD_TOO_LARGE");
  const chunks = Array.from({ length: 8 }, (_, i) =>
    big.slice((i * big.length) / 8, ((i + 1) * big.length) / 8),
  );
  const chunked = await post("/v1/tenants", chunks, false);
  expect(chunked.status).toBe(413);
  expect(chunked.body.error?.code).toBe("PAYLOAD_TOO_LARGE");
  const bad = await post("/v1/tenants", ["{nope"], true);
  expect(bad.status).toBe(400);
  const deep = await post("/v1/tenants", [`${"[".repeat(101)}${"]".repeat(101)}`], true);
  expect(deep.status).toBe(400);
  expect(deep.body.error?.message).toMatch(/nested deeper than 100/);
  // The server still answers on a fresh request after those.
  const after = await post("/v1/tenants", [JSON.stringify({ name: "after" })], true);
  expect(after.status).toBe(201);
});
