/**
 * Under a real server every answer (a route's, an error's, a 404's) carries the request id and
 * the traceparent, once each, as through `app.request`: access-log.ts sets them on Node's own
 * response there.
 */
import { request } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_KEY } from "../support/harness.js";
import { servedApiTestApp } from "../support/served-app.js";

let served: Awaited<ReturnType<typeof servedApiTestApp>>;
let port: number;

beforeAll(async () => {
  served = await servedApiTestApp();
  port = served.port;
});
afterAll(() => served.close());

interface Answer {
  status: number;
  /** Each header's values, as many as were sent. */
  headers: Map<string, string[]>;
  body: string;
}

function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
      const seen = new Map<string, string[]>();
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        const name = res.rawHeaders[i]!.toLowerCase();
        seen.set(name, [...(seen.get(name) ?? []), res.rawHeaders[i + 1]!]);
      }
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: seen, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const auth = { authorization: `Bearer ${ADMIN_KEY}` };
const json = { ...auth, "content-type": "application/json" };

it.each([
  ["a liveness answer", "GET", "/healthz", {}, undefined, 200],
  ["a route's answer", "GET", "/v1/tenants", auth, undefined, 200],
  ["a created resource", "POST", "/v1/tenants", json, JSON.stringify({ name: "acme" }), 201],
  ["no key", "GET", "/v1/tenants", {}, undefined, 401],
  ["a bad body", "POST", "/v1/tenants", json, "{", 400],
  ["a validation error", "POST", "/v1/tenants", json, JSON.stringify({ name: 7 }), 400],
  ["not found", "GET", "/v1/sessions/ses_nope", auth, undefined, 404],
  ["no route", "GET", "/nowhere", {}, undefined, 404],
] as const)(
  "%s carries one request id and one traceparent",
  async (_name, method, path, headers, body, status) => {
    const res = await send(method, path, { ...headers, "x-request-id": "req-abc.1" }, body);
    expect(res.status, res.body).toBe(status);
    expect(res.headers.get("x-request-id")).toEqual(["req-abc.1"]);
    const [traceparent, ...more] = res.headers.get("traceparent") ?? [];
    expect(more).toEqual([]);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    if (status >= 400) expect(JSON.parse(res.body).requestId).toBe("req-abc.1");
  },
);

it("continues the caller's trace and makes a request id when none (or a bad one) came", async () => {
  const res = await send("GET", "/healthz", {
    traceparent: `00-${TRACE}-00f067aa0ba902b7-01`,
    "x-request-id": "a b",
  });
  expect(res.headers.get("traceparent")?.[0]).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
  expect(res.headers.get("x-request-id")?.[0]).toMatch(/^req_[0-9a-f-]{36}$/);
  const other = await send("GET", "/healthz", {});
  expect(other.headers.get("x-request-id")?.[0]).not.toBe(res.headers.get("x-request-id")?.[0]);
});
