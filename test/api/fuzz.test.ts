/**
 * A bounded, seeded fuzzer over every route of `/openapi.json` (in-process, no Redis or Docker):
 * malformed JSON, wrong content types, odd ids, odd headers, bodies past the limit and deeply
 * nested ones. Whatever it sends, the answer is never a 5xx. A failure prints the seed and the
 * request, so it can be replayed.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_KEY, createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_610);
const REQUESTS = 3000;
const BODY_LIMIT = 64 * 1024;

/** mulberry32: small, seeded, good enough to pick cases. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { next, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof rng>;

const ODD_IDS = [
  "",
  "ünïcödé-🙂",
  "x".repeat(5000),
  "..",
  "../../etc/passwd",
  "..%2F..%2Fetc",
  "%00",
  "a%00b",
  "%",
  "%zz",
  "%E0%A4%A",
  "null",
  "__proto__",
  "constructor",
  "job_",
  "ses_ 1",
  "'; drop table jobs; --",
  "%F0%9F%99%82",
];

const ODD_STRINGS = [
  "",
  " ",
  "\u0000",
  "ü🙂\u202e",
  "../../../etc/shadow",
  "a".repeat(70_000),
  "Bash",
  "Read",
  "/workspace/a.txt",
  "http://127.0.0.1:9/mcp",
  "__proto__",
  "$(id)",
  "\ud800",
];

const MALFORMED = [
  "{",
  '{"tool":',
  "nul",
  "\u0000",
  "\ufeff{}",
  "{'a':1}",
  '{"a":1,}',
  "[1,2",
  "undefined",
  "NaN",
  '"unterminated',
  "1e99999",
];

const CONTENT_TYPES = [
  undefined,
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/json; charset=utf-16",
  "application/jsonx",
  "application/merge-patch+json",
  "application/octet-stream",
  "application/gzip",
  "*/*",
  "json",
];

const ODD_QUERIES = [
  "",
  "?wait=-1",
  "?wait=abc",
  "?wait=1e309",
  "?wait=61",
  "?wait=0.0001",
  "?since=not-a-date",
  "?sessionId=%00",
  "?jobId=../x",
  "?lastEventId=99999999999999-0",
  "?limit=-5",
  "?a=1&a=2&a=3",
];

const ODD_EVENT_IDS = ["final", "0-0", "99999999999999-99", "nope", "-1", "1-", "x".repeat(3000)];

function randomJson(r: Rng, depth = 0): unknown {
  const k = r.next();
  if (depth > 3 || k < 0.35) {
    return r.pick([null, true, false, 0, -1, 1.5, 2 ** 53 + 1, 1e308, r.pick(ODD_STRINGS)]);
  }
  if (k < 0.55) return Array.from({ length: Math.floor(r.next() * 4) }, () => randomJson(r, depth + 1));
  const keys = ["tool", "input", "name", "role", "allow", "deny", "ask", "mode", "command", "file_path"];
  const obj: Record<string, unknown> = {};
  for (let i = Math.floor(r.next() * 5); i > 0; i--) obj[r.pick(keys)] = randomJson(r, depth + 1);
  return obj;
}

/** A body that is almost right, to get past the first checks: known fields, odd values. */
function plausibleBody(r: Rng): unknown {
  return r.pick([
    { tool: r.pick(["Bash", "Read", "Write", "Nope", "TaskCreate"]), input: randomJson(r, 2) },
    { tool: "Read", input: { file_path: r.pick(ODD_STRINGS) }, idempotencyKey: r.pick(ODD_STRINGS) },
    { name: r.pick(ODD_STRINGS) },
    { role: r.pick(["agent", "tenant_admin", "admin", ""]) },
    { allow: [r.pick(ODD_STRINGS)], deny: [], ask: [r.pick(["Bash(", "Read(//**)", "mcp__x"])] },
    { mode: r.pick(["bypass", "default", "nope"]), workingDirectories: [r.pick(ODD_STRINGS)] },
    { approve: r.chance(0.5), remember: [r.pick(ODD_STRINGS)] },
    { content: [{ type: "text", text: r.pick(ODD_STRINGS) }], isError: true },
    { files: { "SKILL.md": r.pick(ODD_STRINGS), [r.pick(ODD_IDS)]: "x" } },
    [{ name: r.pick(ODD_STRINGS), description: "d", inputSchema: randomJson(r, 2), tools: ["Read"] }],
    { name: "m", transport: r.pick(["http", "stdio", "x"]), url: "http://127.0.0.1:9/mcp", command: "node" },
    { allowBypass: r.chance(0.5), quotas: { maxSessions: r.pick([-1, 0, 1e12, "x"]) } },
    { jsonrpc: "2.0", id: 1, method: r.pick(["initialize", "tools/list", "tools/call"]), params: {} },
  ]);
}

function deepBody(r: Rng, depth = 10_000): string {
  return r.chance(0.5)
    ? `${"[".repeat(depth)}${"]".repeat(depth)}`
    : `{"tool":"TaskCreate","input":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`;
}

interface Case {
  method: string;
  path: string;
  headers: Headers;
  body?: string;
}

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let ids: Record<string, string[]>;
let keys: string[];

beforeAll(async () => {
  t = await createApiTestApp(new NullSandboxProvider(), {}, { mcp: true });
  const a = await seedTenant(t.call, "fuzz-a");
  const b = await seedTenant(t.call, "fuzz-b");
  await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, {
    key: a.adminKey,
    body: { allow: ["Read"], deny: ["Bash(rm:*)"], ask: ["Bash(touch:*)"] },
  });
  await t.call("POST", `/v1/tenants/${a.tenantId}/mcp-servers`, {
    key: a.adminKey,
    body: { name: "local", transport: "http", url: "http://127.0.0.1:9/mcp" },
  });
  const sid = (await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} })).body.id;
  const jobs: string[] = [];
  for (const input of [
    { tool: "Read", input: { file_path: "/workspace/a" } },
    { tool: "Bash", input: { command: "touch x" } },
    { tool: "Bash", input: { command: "rm -rf /" } },
  ]) {
    jobs.push(
      (await t.call("POST", `/v1/sessions/${sid}/calls`, { key: a.agentKey, body: input })).body.job.id,
    );
  }
  const spare = await t.call("POST", `/v1/tenants/${a.tenantId}/keys`, {
    key: a.adminKey,
    body: { role: "agent" },
  });
  ids = {
    tid: [a.tenantId, b.tenantId],
    sid: [sid],
    jid: jobs,
    kid: [spare.body.id],
    name: ["local", "greet"],
  };
  keys = [ADMIN_KEY, a.adminKey, a.agentKey, b.agentKey];
});
afterAll(() => t?.close());

function makeCase(r: Rng, route: { method: string; path: string }): Case {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const real = ids[name] ?? [];
    const raw = real.length && r.chance(0.5) ? r.pick(real) : r.pick(ODD_IDS);
    // Some odd ids go raw (the router decodes them), others percent-encoded.
    return r.chance(0.5) ? encodeURIComponent(raw) : raw.replace(/[/?#]/g, encodeURIComponent);
  });
  const headers = new Headers();
  const auth = r.next();
  if (auth < 0.75) headers.set("authorization", `Bearer ${r.pick(keys)}`);
  else if (auth < 0.8)
    headers.set("authorization", r.pick(["Bearer", "Bearer ", "Basic abc", "bearer  x y", "Bearer \u00ff"]));
  else if (auth < 0.88) {
    headers.append("authorization", `Bearer ${r.pick(keys)}`);
    headers.append("authorization", `Bearer ${r.pick(keys)}`);
  } else if (auth < 0.92) headers.set("authorization", `Bearer ${"k".repeat(64 * 1024)}`);
  if (r.chance(0.1)) headers.set("x-request-id", r.pick(["", "x".repeat(500), "../", "a b"]));
  if (r.chance(0.1)) headers.set("last-event-id", r.pick(ODD_EVENT_IDS));
  if (r.chance(0.05)) headers.set("x-huge", "h".repeat(32 * 1024));
  if (r.chance(0.05)) headers.set("mcp-session-id", r.pick(ODD_IDS).replace(/[^\x20-\x7e]/g, "?"));

  let body: string | undefined;
  let type: string | undefined = "application/json";
  const k = r.next();
  if (k < 0.25) body = JSON.stringify(plausibleBody(r));
  else if (k < 0.4) body = JSON.stringify(randomJson(r));
  else if (k < 0.55) body = r.pick(MALFORMED);
  else if (k < 0.7) {
    type = r.pick(CONTENT_TYPES);
    body = r.chance(0.5) ? JSON.stringify(plausibleBody(r)) : "tool=Read&input=x";
  } else if (k < 0.77) body = "x".repeat(BODY_LIMIT + 1 + Math.floor(r.next() * 1000));
  else if (k < 0.84) body = deepBody(r);
  else if (k < 0.9) body = "";
  else body = undefined;
  if (body !== undefined && type) headers.set("content-type", type);
  if (route.method === "GET" || route.method === "HEAD") body = undefined;
  return { method: route.method, path: path + r.pick(ODD_QUERIES), headers, body };
}

it(`fuzzes every route from /openapi.json: ${REQUESTS} requests, no 5xx`, async () => {
  const doc = (await t.call("GET", "/openapi.json")).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  const routes: { method: string; path: string }[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const method of Object.keys(ops)) routes.push({ method: method.toUpperCase(), path });
  }
  // The session MCP endpoint also answers GET and DELETE (documented as one POST).
  routes.push(
    { method: "GET", path: "/v1/sessions/{sid}/mcp" },
    { method: "DELETE", path: "/v1/sessions/{sid}/mcp" },
  );
  expect(routes.length).toBeGreaterThan(30);

  const r = rng(SEED);
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let sent = 0;
  for (; sent < REQUESTS; sent++) {
    const c = makeCase(r, routes[sent % routes.length]!);
    const res = await t.app.request(c.path, { method: c.method, headers: c.headers, body: c.body });
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const isStream = res.headers.get("content-type")?.includes("text/event-stream");
    if (isStream) await res.body?.cancel();
    const text = isStream ? "" : await res.text();
    // No worker runs here: an allowed file transfer waits briefly, then says its job is pending.
    const pendingTransfer =
      res.status === 504 && /\/(files|workspace\.tar)\b/.test(c.path) && text.includes('"TRANSFER_PENDING"');
    if (res.status >= 500 && !pendingTransfer) {
      failures.push(
        `#${sent} ${c.method} ${c.path.slice(0, 200)} body=${String(c.body).slice(0, 120)} -> ${res.status} ${text.slice(0, 200)}`,
      );
    } else if (res.status >= 400 && !isStream && res.headers.get("content-type")?.includes("json")) {
      // A 4xx from the API is the error envelope (the MCP transport answers JSON-RPC errors).
      const parsed = JSON.parse(text) as { error?: { code?: unknown } };
      if (typeof parsed.error?.code !== "string" && !c.path.includes("/mcp")) {
        failures.push(
          `#${sent} ${c.method} ${c.path.slice(0, 200)}: no error envelope: ${text.slice(0, 200)}`,
        );
      }
    }
  }
  console.log(
    `fuzz seed ${SEED}: ${sent} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
  expect(failures, `seed ${SEED}\n${failures.slice(0, 20).join("\n")}`).toEqual([]);
  expect(statuses.get(415) ?? 0).toBeGreaterThan(0);
  expect(statuses.get(413) ?? 0).toBeGreaterThan(0);
}, 120_000);

it("a 10k-deep JSON body is a 400 on a route that stores its input", async () => {
  const sid = ids.sid?.[0];
  const d = 10_000;
  const body = `{"tool":"TaskCreate","input":{"subject":"s","description":"d","metadata":${'{"a":'.repeat(d)}1${"}".repeat(d)}}}`;
  const res = await t.app.request(`/v1/sessions/${sid}/calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${keys[2]}`, "content-type": "application/json" },
    body,
  });
  const problem = (await res.json()) as { error: { code: string } };
  expect(res.status, JSON.stringify(problem)).toBe(400);
  expect(problem.error.code).toBe("VALIDATION");
});
