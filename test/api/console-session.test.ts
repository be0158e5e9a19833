/**
 * The console's sign-in and its cookie on `/v1`: cookie attributes, CSRF on every change, no
 * cross-site changes, revocation and expiry; the static page's headers; the rules dry run.
 */
import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tablesOf } from "../../src/db/db.js";
import { ConsoleSessions, SIGNOUT_KEPT_PAST_EXPIRY_MS } from "../../src/service/tenancy/console-sessions.js";
import { ADMIN_KEY, createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let tenant: Awaited<ReturnType<typeof seedTenant>>;

beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  tenant = await seedTenant(t.call);
});
afterEach(() => t.close());

async function signIn(key: string, headers: Record<string, string> = {}) {
  const res = await t.app.request("/console/session", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ key }),
  });
  const setCookie = res.headers.get("set-cookie") ?? "";
  const cookie = /toolshed_console=([^;]*)/.exec(setCookie)?.[1] ?? "";
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on JSON bodies freely
  return { res, setCookie, cookie, body: (await res.json()) as any };
}

function withCookie(
  cookie: string,
  path: string,
  init: RequestInit & { headers?: Record<string, string> } = {},
) {
  return t.app.request(path, { ...init, headers: { cookie: `toolshed_console=${cookie}`, ...init.headers } });
}

const RULES = { allow: ["Bash"], deny: [], ask: ["Bash(touch:*)"] };
const putRules = (cookie: string, headers: Record<string, string>) =>
  withCookie(cookie, `/v1/tenants/${tenant.tenantId}/rules`, {
    method: "PUT",
    headers: { "content-type": "application/json", host: "localhost", ...headers },
    body: JSON.stringify(RULES),
  });

describe("console sign-in", () => {
  it("exchanges an admin key for an HttpOnly, SameSite=Strict, Path=/ cookie that is not the key", async () => {
    const { res, setCookie, cookie, body } = await signIn(tenant.adminKey);
    expect(res.status).toBe(200);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).toMatch(/Expires=/);
    expect(setCookie).not.toMatch(/Secure/);
    expect(setCookie).not.toContain(tenant.adminKey);
    expect(body).toMatchObject({ role: "tenant_admin", tenantId: tenant.tenantId });
    expect(JSON.stringify(body)).not.toContain(cookie);
    expect(typeof body.csrfToken).toBe("string");
    // Behind TLS the cookie is Secure too.
    const https = await signIn(tenant.adminKey, { "x-forwarded-proto": "https" });
    expect(https.setCookie).toMatch(/Secure/);
  });

  it("refuses agent keys (403), unknown keys (401) and a missing key (400 naming key)", async () => {
    expect((await signIn(tenant.agentKey)).res.status).toBe(403);
    expect((await signIn("tsk_nope")).res.status).toBe(401);
    // No login CSRF: another site's page cannot sign a browser in.
    const cross = await signIn(tenant.adminKey, { origin: "https://evil.example", host: "localhost" });
    expect(cross.res.status).toBe(403);
    expect(cross.setCookie).toBe("");
    const res = await t.app.request("/console/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "VALIDATION", details: [{ path: "key" }] } });
  });

  it("reads with the cookie alone; changes need the CSRF token and a same-site origin", async () => {
    const { cookie, body } = await signIn(tenant.adminKey);
    expect((await withCookie(cookie, `/v1/tenants/${tenant.tenantId}/rules`)).status).toBe(200);
    expect((await putRules(cookie, {})).status).toBe(403);
    expect((await putRules(cookie, { "x-csrf-token": "forged" })).status).toBe(403);
    expect((await putRules(cookie, { "x-csrf-token": body.csrfToken })).status).toBe(200);
    expect(
      (await putRules(cookie, { "x-csrf-token": body.csrfToken, origin: "http://localhost" })).status,
    ).toBe(200);
    const evil = await putRules(cookie, { "x-csrf-token": body.csrfToken, origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { error: { message: string } }).error.message).toMatch(/evil\.example/);
    const crossSite = await putRules(cookie, {
      "x-csrf-token": body.csrfToken,
      "sec-fetch-site": "cross-site",
    });
    expect(crossSite.status).toBe(403);
    // Another session's token does not fit this session.
    const other = await signIn(tenant.adminKey);
    expect((await putRules(cookie, { "x-csrf-token": other.body.csrfToken })).status).toBe(403);
  });

  it("a bearer key still works beside a cookie (no CSRF: a page cannot send another's header)", async () => {
    const { cookie } = await signIn(tenant.adminKey);
    const res = await putRules(cookie, { authorization: `Bearer ${tenant.adminKey}` });
    expect(res.status).toBe(200);
  });

  it("a tampered cookie is 401; revoking the key ends the session; sign-out clears the cookie", async () => {
    const { cookie, body } = await signIn(tenant.adminKey);
    const [payload, mac] = cookie.split(".");
    const tampered = `${Buffer.from(JSON.stringify({ k: "key_other", e: Date.now() + 1e6, n: "x" })).toString("base64url")}.${mac}`;
    expect(payload).toBeTruthy();
    expect((await withCookie(tampered, "/console/session")).status).toBe(401);

    const out = await withCookie(cookie, "/console/session", { method: "DELETE" });
    expect(out.status).toBe(403);
    const signedOut = await withCookie(cookie, "/console/session", {
      method: "DELETE",
      headers: { "x-csrf-token": body.csrfToken },
    });
    expect(signedOut.status).toBe(204);
    expect(signedOut.headers.get("set-cookie")).toMatch(/toolshed_console=;.*Max-Age=0/);
    const replayed = await withCookie(cookie, `/v1/tenants/${tenant.tenantId}/rules`);
    expect(((await replayed.json()) as { error: { message: string } }).error.message).toMatch(/signed out/);

    const live = await signIn(tenant.adminKey);
    const keys = await t.call("GET", `/v1/tenants/${tenant.tenantId}/keys`, { key: ADMIN_KEY });
    const kid = keys.body.keys.find((k: { role: string }) => k.role === "tenant_admin").id;
    expect((await t.call("DELETE", `/v1/keys/${kid}`, { key: ADMIN_KEY })).status).toBe(204);
    const after = await withCookie(live.cookie, `/v1/tenants/${tenant.tenantId}/rules`);
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { message: string } }).error.message).toMatch(/revoked/);
  });

  it("a session expires; another server secret does not accept it", async () => {
    let now = 1_000_000;
    const secret = randomBytes(32);
    const sessions = new ConsoleSessions(t.deps.db, secret, 60_000, () => now);
    const s = await sessions.signIn(tenant.adminKey);
    expect((await sessions.resume(s.token)).principal.tenantId).toBe(tenant.tenantId);
    await expect(new ConsoleSessions(t.deps.db, randomBytes(32)).resume(s.token)).rejects.toThrow(
      /not signed in/,
    );
    now += 60_001;
    await expect(sessions.resume(s.token)).rejects.toThrow(/expired/);
  });

  it("remembers a signed-out session until an hour past its expiry, then forgets it", async () => {
    let now = 1_000_000;
    const sessions = new ConsoleSessions(t.deps.db, randomBytes(32), 60_000, () => now);
    const { consoleSignouts } = tablesOf(t.deps.db);
    const kept = async () => (await t.deps.db.select().from(consoleSignouts)).map((r) => r.expiresAt);
    const first = await sessions.signIn(tenant.adminKey);
    await sessions.signOut(first);
    await sessions.signOut(first);
    await expect(sessions.resume(first.token)).rejects.toThrow(/signed out/);
    expect(await kept()).toEqual([new Date(1_060_000).toISOString()]);
    now += 30_000;
    const second = await sessions.signIn(tenant.adminKey);
    await sessions.signOut(second);
    expect(await kept()).toHaveLength(2);
    // An hour past the first one's expiry (any host's clock has its cookie expired by then), its
    // row goes; the second, inside that hour, stays.
    now += 30_001 + SIGNOUT_KEPT_PAST_EXPIRY_MS;
    await sessions.signOut(await sessions.signIn(tenant.adminKey));
    expect(await kept()).toEqual([new Date(1_090_000).toISOString(), new Date(now + 60_000).toISOString()]);
    await expect(sessions.resume(first.token)).rejects.toThrow(/expired/);
  });
});

describe("the console page", () => {
  it("is served with a strict CSP; assets only from its folder; the vendored Preact imports our copy", async () => {
    const page = await t.app.request("/console/rules");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/script-src 'self'/);
    expect(page.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
    expect(await page.text()).toContain("/console/assets/app.js");
    const hooks = await t.app.request("/console/assets/vendor/hooks.mjs");
    expect(hooks.status).toBe(200);
    expect(await hooks.text()).toContain('from"/console/assets/vendor/preact.mjs"');
    expect((await t.app.request("/console/assets/vendor/htm.mjs")).status).toBe(200);
    // The jobs page reads the status list from the OpenAPI document.
    const doc = (await (await t.app.request("/openapi.json")).json()) as {
      components: { schemas: { JobStatus: { enum: string[] } } };
    };
    expect(doc.components.schemas.JobStatus.enum).toContain("awaiting_approval");
    // Dot segments are resolved by the URL first: at most the page comes back, never a source file.
    for (const path of [
      "/console/assets/../../api/app.ts",
      "/console/assets/%2e%2e/console-routes.ts",
      "/console/assets/..%2f..%2fapi/app.ts",
      "/console/assets/x.ts",
    ]) {
      const res = await t.app.request(path);
      expect(await res.text(), path).not.toMatch(/export function|import /);
    }
    expect((await t.app.request("/console/assets/nope.js")).status).toBe(404);
  });
});

describe("rules dry run", () => {
  it("lists the recent calls a proposed rule set decides differently, and stores nothing", async () => {
    await t.call("PUT", `/v1/tenants/${tenant.tenantId}/rules`, { key: tenant.adminKey, body: RULES });
    const s = await t.call("POST", "/v1/sessions", { key: tenant.agentKey, body: {} });
    const submit = (command: string) =>
      t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
        key: tenant.agentKey,
        body: { tool: "Bash", input: { command } },
      });
    const asked = await submit("touch /workspace/a");
    expect(asked.body.job.status).toBe("awaiting_approval");
    await submit("echo hi");

    const proposed = { allow: ["Bash"], deny: ["Bash(touch:*)"], ask: [] };
    const res = await t.call("POST", `/v1/tenants/${tenant.tenantId}/rules/dry-run`, {
      key: tenant.adminKey,
      body: proposed,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.checked).toBe(2);
    expect(res.body.changes).toEqual([
      expect.objectContaining({
        jobId: asked.body.job.id,
        tool: "Bash",
        input: expect.objectContaining({ command: "touch /workspace/a" }),
        before: expect.objectContaining({ behavior: "ask" }),
        after: expect.objectContaining({ behavior: "deny", rule: "Bash(touch:*)" }),
      }),
    ]);
    const stored = await t.call("GET", `/v1/tenants/${tenant.tenantId}/rules`, { key: tenant.adminKey });
    expect(stored.body).toEqual(RULES);
  });

  it("a bad rule is a 400 naming it; another tenant's admin gets 404; an agent 403", async () => {
    const url = `/v1/tenants/${tenant.tenantId}/rules/dry-run`;
    const bad = await t.call("POST", url, {
      key: tenant.adminKey,
      body: { allow: [], deny: ["Bash("], ask: [] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("deny[0]");
    const other = await seedTenant(t.call, "other");
    const body = { allow: [], deny: [], ask: [] };
    expect((await t.call("POST", url, { key: other.adminKey, body })).status).toBe(404);
    expect((await t.call("POST", url, { key: tenant.agentKey, body })).status).toBe(403);
  });
});
