/**
 * Per endpoint, from one table: the happy path, a validation error naming the field, a missing /
 * bad / revoked key (401), a role that may not act (403) and another tenant's id (404).
 * Endpoints open to every role (e.g. GET /v1/jobs/{jid}: agent, tenant_admin and the platform
 * admin) have no 403 row; endpoints without input (GETs) have no 400 row; endpoints that name
 * no tenant-owned id (POST /v1/tenants, POST /v1/sessions, POST /v1/policy/check) no 404 row.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ADMIN_KEY } from "../support/harness.js";
import { LOOKUP_TOOL, twoTenants, type World } from "./tenancy-fixture.js";

type Who = "admin" | "tenant_admin" | "agent";
type Side = World["a"];

interface Endpoint {
  name: string;
  method: string;
  /** The path for side `s` (A for the happy path, B's ids for the cross-tenant case). */
  path: (s: Side) => string;
  ok: { who: Who; status: number; body?: unknown };
  bad?: { body?: unknown; query?: string; field: string };
  forbidden?: Who;
  crossTenant?: boolean;
}

const key = (w: World, who: Who, s: Side = w.a) =>
  who === "admin" ? ADMIN_KEY : who === "agent" ? s.agentKey : s.adminKey;

const policyBody = { tool: "Bash", input: { command: "git status" }, rule: "Bash(git:*)" };
const ENDPOINTS: Endpoint[] = [
  {
    name: "POST /v1/tenants",
    method: "POST",
    path: () => "/v1/tenants",
    ok: { who: "admin", status: 201, body: { name: "new" } },
    bad: { body: { name: 3 }, field: "name" },
    forbidden: "tenant_admin",
  },
  {
    name: "POST /v1/tenants/{tid}/keys",
    method: "POST",
    path: (s) => `/v1/tenants/${s.tenantId}/keys`,
    ok: { who: "tenant_admin", status: 201, body: { role: "agent" } },
    bad: { body: { role: "admin" }, field: "role" },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "GET /v1/tenants/{tid}/keys",
    method: "GET",
    path: (s) => `/v1/tenants/${s.tenantId}/keys`,
    ok: { who: "tenant_admin", status: 200 },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "DELETE /v1/keys/{kid}",
    method: "DELETE",
    path: (s) => `/v1/keys/${s.spareKeyId}`,
    ok: { who: "tenant_admin", status: 204 },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "PUT /v1/tenants/{tid}/rules",
    method: "PUT",
    path: (s) => `/v1/tenants/${s.tenantId}/rules`,
    ok: { who: "tenant_admin", status: 200, body: { allow: ["Read"], deny: [], ask: [] } },
    bad: { body: { allow: ["Read", "Bash(x:*)", "Bash(("], deny: [], ask: [] }, field: "allow[2]" },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "GET /v1/tenants/{tid}/rules",
    method: "GET",
    path: (s) => `/v1/tenants/${s.tenantId}/rules`,
    ok: { who: "tenant_admin", status: 200 },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "PUT /v1/tenants/{tid}/settings",
    method: "PUT",
    path: (s) => `/v1/tenants/${s.tenantId}/settings`,
    ok: { who: "tenant_admin", status: 200, body: { approvalTtlSeconds: 60 } },
    bad: { body: { approvalTtlSeconds: 1 }, field: "approvalTtlSeconds" },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "GET /v1/tenants/{tid}/settings",
    method: "GET",
    path: (s) => `/v1/tenants/${s.tenantId}/settings`,
    ok: { who: "tenant_admin", status: 200 },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "PUT /v1/tenants/{tid}/tools",
    method: "PUT",
    path: (s) => `/v1/tenants/${s.tenantId}/tools`,
    ok: { who: "tenant_admin", status: 200, body: [LOOKUP_TOOL] },
    bad: { body: [LOOKUP_TOOL, { ...LOOKUP_TOOL, name: "no spaces" }], field: "[1].name" },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "GET /v1/tenants/{tid}/tools",
    method: "GET",
    path: (s) => `/v1/tenants/${s.tenantId}/tools`,
    ok: { who: "tenant_admin", status: 200 },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "GET /v1/tenants/{tid}/audit",
    method: "GET",
    path: (s) => `/v1/tenants/${s.tenantId}/audit`,
    ok: { who: "tenant_admin", status: 200 },
    bad: { query: "?since=yesterday", field: "since" },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "POST /v1/policy/check",
    method: "POST",
    path: () => "/v1/policy/check",
    ok: { who: "tenant_admin", status: 200, body: policyBody },
    bad: {
      body: { ...policyBody, rules: { allow: ["Bash(("], deny: [], ask: [] } },
      field: "rules.allow[0]",
    },
    forbidden: "agent",
  },
  {
    name: "POST /v1/sessions",
    method: "POST",
    path: () => "/v1/sessions",
    ok: { who: "agent", status: 201, body: { mode: "explore" } },
    bad: { body: { mode: "yolo" }, field: "mode" },
    forbidden: "admin",
  },
  {
    name: "GET /v1/sessions/{sid}",
    method: "GET",
    path: (s) => `/v1/sessions/${s.sid}`,
    ok: { who: "agent", status: 200 },
    crossTenant: true,
  },
  {
    name: "PATCH /v1/sessions/{sid}",
    method: "PATCH",
    path: (s) => `/v1/sessions/${s.sid}`,
    ok: { who: "agent", status: 200, body: { mode: "dont_ask", workingDirectories: ["/tmp/data"] } },
    bad: { body: { workingDirectories: ["/tmp/ok", "relative"] }, field: "workingDirectories[1]" },
    crossTenant: true,
  },
  {
    name: "DELETE /v1/sessions/{sid}",
    method: "DELETE",
    path: (s) => `/v1/sessions/${s.sid}`,
    ok: { who: "agent", status: 204 },
    crossTenant: true,
  },
  {
    name: "GET /v1/sessions/{sid}/tools",
    method: "GET",
    path: (s) => `/v1/sessions/${s.sid}/tools`,
    ok: { who: "agent", status: 200 },
    forbidden: "tenant_admin",
    crossTenant: true,
  },
  {
    name: "POST /v1/sessions/{sid}/calls",
    method: "POST",
    path: (s) => `/v1/sessions/${s.sid}/calls`,
    ok: { who: "agent", status: 202, body: { tool: "Read", input: { file_path: "/workspace/x" } } },
    bad: { body: { tool: "Read", input: { file_path: 7 } }, field: "input.file_path" },
    forbidden: "tenant_admin",
    crossTenant: true,
  },
  {
    name: "POST /v1/sessions/{sid}/decisions",
    method: "POST",
    path: (s) => `/v1/sessions/${s.sid}/decisions`,
    ok: { who: "agent", status: 200, body: { tool: "Bash", input: { command: "rm x" } } },
    bad: { body: { tool: "Bash", input: {} }, field: "input.command" },
    crossTenant: true,
  },
  {
    name: "GET /v1/jobs/{jid}",
    method: "GET",
    path: (s) => `/v1/jobs/${s.askJob}`,
    ok: { who: "agent", status: 200 },
    crossTenant: true,
  },
  {
    name: "GET /v1/jobs/{jid}/events",
    method: "GET",
    path: (s) => `/v1/jobs/${s.deniedJob}/events`,
    ok: { who: "agent", status: 200 },
    crossTenant: true,
  },
  {
    name: "POST /v1/jobs/{jid}/cancel",
    method: "POST",
    path: (s) => `/v1/jobs/${s.queuedJob}/cancel`,
    ok: { who: "agent", status: 200 },
    crossTenant: true,
  },
  {
    name: "POST /v1/jobs/{jid}/approval",
    method: "POST",
    path: (s) => `/v1/jobs/${s.askJob}/approval`,
    ok: { who: "tenant_admin", status: 200, body: { approve: true } },
    bad: { body: { approve: "yes" }, field: "approve" },
    forbidden: "agent",
    crossTenant: true,
  },
  {
    name: "POST /v1/jobs/{jid}/external-result",
    method: "POST",
    path: (s) => `/v1/jobs/${s.extJob}/external-result`,
    ok: { who: "agent", status: 200, body: { content: [{ type: "text", text: "found" }] } },
    bad: { body: { content: [{ type: "image", text: "x" }] }, field: "content[0].type" },
    crossTenant: true,
  },
];

let w: World;
beforeEach(async () => {
  w = await twoTenants();
});
afterEach(() => w.t.close());

const send = (e: Endpoint, k: string | undefined, path: string, body?: unknown) =>
  w.t.call(e.method, path, { ...(k ? { key: k } : {}), ...(body === undefined ? {} : { body }) });

describe.each(ENDPOINTS)("$name", (e) => {
  it("happy path", async () => {
    const res = await send(e, key(w, e.ok.who), e.path(w.a), e.ok.body);
    expect(res.status, JSON.stringify(res.body)).toBe(e.ok.status);
  });

  it("401 without a key, with a bad key and with a revoked key", async () => {
    const revokedKey = w.revoked[e.ok.who === "admin" ? "tenant_admin" : e.ok.who]!;
    for (const k of [undefined, "tsk_not-a-key", revokedKey]) {
      const res = await send(e, k, e.path(w.a), e.ok.body);
      expect(res.status, JSON.stringify(res.body)).toBe(401);
      expect(res.body.error.code).toBe("UNAUTHENTICATED");
    }
  });

  if (e.bad) {
    const bad = e.bad;
    it(`400 naming ${bad.field}`, async () => {
      const res = await send(e, key(w, e.ok.who), e.path(w.a) + (bad.query ?? ""), bad.body ?? e.ok.body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION");
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(bad.field);
    });
  }

  if (e.forbidden) {
    const who = e.forbidden;
    it(`403 for a ${who} key`, async () => {
      const res = await send(e, key(w, who), e.path(w.a), e.ok.body);
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
    });
  }

  if (e.crossTenant) {
    it("404 for another tenant's id, exactly like a missing one", async () => {
      const res = await send(e, key(w, e.ok.who), e.path(w.b), e.ok.body);
      expect(res.status, JSON.stringify(res.body)).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
      const gone = e.path(w.b).replace(/(ten|ses|job|key)_\w+/, "$1_nope");
      const missing = await send(e, key(w, e.ok.who), gone, e.ok.body);
      expect(missing.status).toBe(404);
    });
  }
});

describe("the OpenAPI document", () => {
  it("covers every endpoint in the table with its error responses", async () => {
    const doc = (await w.t.call("GET", "/openapi.json")).body;
    for (const e of ENDPOINTS) {
      const path = e.name.split(" ")[1]!;
      const op = doc.paths[path]?.[e.method.toLowerCase()];
      expect(op, e.name).toBeDefined();
      for (const code of ["400", "401", "403", "404", "500"])
        expect(op.responses[code], `${e.name} ${code}`).toBeDefined();
    }
    expect(doc.paths["/v1/sessions/{sid}/calls"].post.responses["429"].headers["Retry-After"]).toBeDefined();
    expect(doc.paths["/v1/jobs/{jid}/approval"].post.responses["409"]).toBeDefined();
    expect(doc.paths["/v1/tenants/{tid}/settings"].put.description).toContain("platform admin");
  });
});
