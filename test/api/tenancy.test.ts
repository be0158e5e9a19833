/** Tenants, keys, rules: happy paths, validation, auth (401/403) and cross-tenant 404s. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ADMIN_KEY, createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
});
afterEach(() => t.close());

describe("auth", () => {
  it("401 without a key, with a bad key and with a revoked key", async () => {
    const none = await t.call("POST", "/v1/tenants", { body: { name: "x" } });
    expect(none.status, JSON.stringify(none.body)).toBe(401);
    expect(none.body.error.code).toBe("UNAUTHENTICATED");
    expect(none.body.requestId).toBe(none.headers.get("x-request-id"));
    const bad = await t.call("POST", "/v1/tenants", { key: "nope", body: { name: "x" } });
    expect(bad.status).toBe(401);
    const a = await seedTenant(t.call);
    const k = await t.call("POST", `/v1/tenants/${a.tenantId}/keys`, {
      key: a.adminKey,
      body: { role: "agent" },
    });
    expect(k.status, JSON.stringify(k.body)).toBe(201);
    const del = await t.call("DELETE", `/v1/keys/${k.body.id}`, { key: a.adminKey });
    expect(del.status).toBe(204);
    const revoked = await t.call("POST", "/v1/sessions", { key: k.body.key, body: {} });
    expect(revoked.status).toBe(401);
  });

  it("403 for a role that may not act", async () => {
    const a = await seedTenant(t.call);
    const res = await t.call("POST", "/v1/tenants", { key: a.agentKey, body: { name: "x" } });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    const rules = await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, {
      key: a.agentKey,
      body: { allow: [], deny: [], ask: [] },
    });
    expect(rules.status).toBe(403);
  });
});

describe("tenants and keys", () => {
  it("creates a tenant and keys; the key is shown once", async () => {
    const res = await t.call("POST", "/v1/tenants", { key: ADMIN_KEY, body: { name: "acme" } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.id).toMatch(/^ten_/);
    const k = await t.call("POST", `/v1/tenants/${res.body.id}/keys`, {
      key: ADMIN_KEY,
      body: { role: "agent" },
    });
    expect(k.status, JSON.stringify(k.body)).toBe(201);
    expect(k.body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      role: "agent",
      key: expect.any(String),
    });
  });

  it("400 names the field", async () => {
    const res = await t.call("POST", "/v1/tenants", { key: ADMIN_KEY, body: { name: 3 } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details[0].path).toBe("name");
    const role = await t.call("POST", "/v1/tenants/ten_x/keys", { key: ADMIN_KEY, body: { role: "admin" } });
    expect(role.status).toBe(400);
    expect(role.body.error.details[0].path).toBe("role");
  });

  it("another tenant's keys and rules are 404", async () => {
    const a = await seedTenant(t.call, "a");
    const b = await seedTenant(t.call, "b");
    const keys = await t.call("POST", `/v1/tenants/${b.tenantId}/keys`, {
      key: a.adminKey,
      body: { role: "agent" },
    });
    expect(keys.status, JSON.stringify(keys.body)).toBe(404);
    const rules = await t.call("GET", `/v1/tenants/${b.tenantId}/rules`, { key: a.adminKey });
    expect(rules.status).toBe(404);
  });
});

describe("rules", () => {
  it("stores and returns a rule set", async () => {
    const a = await seedTenant(t.call);
    const body = { allow: ["Bash(git:*)", "Read"], deny: ["Bash(rm:*)"], ask: [] };
    const put = await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, { key: a.adminKey, body });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual(body);
    const get = await t.call("GET", `/v1/tenants/${a.tenantId}/rules`, { key: a.adminKey });
    expect(get.body).toEqual(body);
  });

  it("400 naming allow[2] for a bad rule string", async () => {
    const a = await seedTenant(t.call);
    const put = await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, {
      key: a.adminKey,
      body: { allow: ["Read", "Bash(ls:*)", "Bash(oops"], deny: [], ask: [] },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(400);
    expect(put.body.error.details[0].path).toBe("allow[2]");
  });
});

describe("system", () => {
  it("healthz, metrics, openapi and docs need no key", async () => {
    expect((await t.call("GET", "/healthz")).body).toEqual({ ok: true });
    const m = await t.call("GET", "/metrics");
    expect(m.body).toContain("toolshed_http_requests_total");
    const doc = await t.call("GET", "/openapi.json");
    expect(doc.body.paths["/v1/sessions/{sid}/calls"]).toBeDefined();
    expect((await t.call("GET", "/docs")).status).toBe(200);
  });

  it("413 past the body limit; malformed JSON is a 400", async () => {
    const big = await t.call("POST", "/v1/tenants", { key: ADMIN_KEY, body: { name: "x".repeat(100_000) } });
    expect(big.status, JSON.stringify(big.body)).toBe(413);
    expect(big.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    const res = await t.app.request("/v1/tenants", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: "{nope",
    });
    expect(res.status).toBe(400);
  });
});
