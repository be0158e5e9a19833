/**
 * The console's cookie attacked from outside (attack23b): replay after sign-out, the spellings of
 * a cross-site request, state changes by methods that look safe, CORS, another tenant's data with
 * a tenant admin's cookie, and the static files' answers to unauthenticated probing.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StaticFiles } from "../../src/console/static-files.js";
import { ADMIN_KEY } from "../support/harness.js";
import { twoTenants, type World } from "./tenancy-fixture.js";

let w: World;
beforeAll(async () => {
  w = await twoTenants();
});
afterAll(() => w.t.close());

interface Signed {
  cookie: string;
  csrf: string;
}

async function signIn(key: string): Promise<Signed> {
  const res = await w.t.app.request("/console/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key }),
  });
  expect(res.status).toBe(200);
  const cookie = /toolshed_console=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? "";
  const body = (await res.json()) as { csrfToken: string };
  return { cookie, csrf: body.csrfToken };
}

/** A browser's request with the console cookie (and, for a change, the CSRF token). */
function send(s: Signed, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  return w.t.app.request(path, {
    method,
    headers: {
      cookie: `toolshed_console=${s.cookie}`,
      host: "localhost",
      ...(method === "GET" || method === "HEAD" ? {} : { "x-csrf-token": s.csrf }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const liveKeyIds = async (tid: string) =>
  (await w.t.call("GET", `/v1/tenants/${tid}/keys`, { key: ADMIN_KEY })).body.keys
    .filter((k: { revokedAt?: string | null }) => !k.revokedAt)
    .map((k: { id: string }) => k.id) as string[];

describe("the console's session cookie", () => {
  it("is dead on the server once signed out: the same cookie replayed later is 401", async () => {
    const s = await signIn(w.a.adminKey);
    const other = await signIn(w.a.adminKey);
    const rules = `/v1/tenants/${w.a.tenantId}/rules`;
    expect((await send(s, "GET", rules)).status).toBe(200);
    expect((await send(s, "DELETE", "/console/session")).status).toBe(204);
    // A copy of the cookie taken before the sign-out (a shared computer, a proxy's log).
    expect((await send(s, "GET", rules)).status).toBe(401);
    expect((await send(s, "GET", "/console/session")).status).toBe(401);
    expect((await send(s, "PUT", rules, {}, { allow: ["Bash"], deny: [], ask: [] })).status).toBe(401);
    // Only that session ended: another sign-in of the same key goes on.
    expect((await send(other, "GET", rules)).status).toBe(200);
  });

  it("over HTTPS is a __Host- cookie: one planted by a sibling subdomain (no prefix, or a Domain) is not read", async () => {
    const https = { "x-forwarded-proto": "https", host: "toolshed.example.com" };
    const res = await w.t.app.request("/console/session", {
      method: "POST",
      headers: { "content-type": "application/json", ...https },
      body: JSON.stringify({ key: w.b.adminKey }),
    });
    expect(res.status).toBe(200);
    const set = res.headers.get("set-cookie") ?? "";
    expect(set).toMatch(/^__Host-toolshed_console=[^;]+;/);
    expect(set).toMatch(/; Secure/);
    expect(set).toMatch(/; Path=\/;/);
    expect(set).not.toMatch(/Domain=/i);
    const value = /^__Host-toolshed_console=([^;]+)/.exec(set)![1]!;
    const me = async (cookie: string) =>
      (await w.t.app.request("/console/session", { headers: { cookie, ...https } })).status;
    expect(await me(`__Host-toolshed_console=${value}`)).toBe(200);
    // What evil.example.com could set for .example.com: the unprefixed name, even with a valid session (the attacker's own).
    expect(await me(`toolshed_console=${value}`)).toBe(401);
    const rules = await w.t.app.request(`/v1/tenants/${w.b.tenantId}/rules`, {
      headers: { cookie: `toolshed_console=${value}`, ...https },
    });
    expect(rules.status).toBe(401);
    // Sign-out clears the prefixed cookie.
    const out = await w.t.app.request("/console/session", {
      method: "DELETE",
      headers: {
        cookie: `__Host-toolshed_console=${value}`,
        "x-csrf-token": ((await res.json()) as { csrfToken: string }).csrfToken,
        ...https,
      },
    });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^__Host-toolshed_console=;.*Max-Age=0/);
  });

  it("refuses every spelling of a foreign or opaque Origin on a change", async () => {
    const s = await signIn(w.a.adminKey);
    const rules = `/v1/tenants/${w.a.tenantId}/rules`;
    const put = (headers: Record<string, string>) =>
      send(s, "PUT", rules, headers, {
        allow: ["Read", "lookup"],
        deny: ["Bash(rm:*)"],
        ask: ["Bash(touch:*)"],
      });
    for (const origin of [
      "null",
      "http://localhost.",
      "http://localhost:80.evil.example",
      "http://localhost@evil.example",
      "http://evil.example#@localhost",
      "http://evil.example/localhost",
      "",
      "localhost",
    ]) {
      expect((await put({ origin })).status, origin).toBe(403);
    }
    expect((await put({ "sec-fetch-site": "cross-site" })).status).toBe(403);
    // A sibling subdomain is the same site: SameSite=Strict sends the cookie, the Origin refuses it.
    expect((await put({ origin: "http://evil.localhost", "sec-fetch-site": "same-site" })).status).toBe(403);
    // The same origin in capitals is the same origin.
    expect((await put({ origin: "HTTP://LOCALHOST" })).status).toBe(200);
    expect((await put({ origin: "http://localhost", "sec-fetch-site": "same-origin" })).status).toBe(200);
  });

  it("changes nothing by a method that looks safe, a method override, or a preflight; sends no CORS grant", async () => {
    const s = await signIn(w.a.adminKey);
    const before = await liveKeyIds(w.a.tenantId);
    const target = `/v1/keys/${w.a.spareKeyId}`;
    for (const method of ["GET", "HEAD", "OPTIONS"]) {
      const res = await send(s, method, target, {
        origin: "https://evil.example",
        "x-http-method-override": "DELETE",
        "x-method-override": "DELETE",
        "access-control-request-method": "DELETE",
      });
      expect([404, 405], method).toContain(res.status);
      expect(res.headers.get("access-control-allow-origin"), method).toBeNull();
      expect(res.headers.get("access-control-allow-credentials"), method).toBeNull();
    }
    // POST with an override header and the token is still a POST (no such route), not a DELETE.
    const post = await send(s, "POST", `${target}?_method=DELETE`, { "x-http-method-override": "DELETE" });
    expect(post.status).toBe(404);
    // A cross-site read is answered without a grant: the other page cannot read it.
    const read = await send(s, "GET", `/v1/tenants/${w.a.tenantId}/keys`, { origin: "https://evil.example" });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    expect(await liveKeyIds(w.a.tenantId)).toEqual(before);
  });

  it("a tenant admin's cookie reaches no other tenant's lists, streams or jobs, and no platform-admin page", async () => {
    const s = await signIn(w.a.adminKey);
    const b = w.b;
    for (const path of [
      `/v1/approvals?tenantId=${b.tenantId}`,
      `/v1/jobs?tenantId=${b.tenantId}`,
      `/v1/sessions?tenantId=${b.tenantId}`,
      `/v1/approvals/events?tenantId=${b.tenantId}`,
      `/v1/jobs/${b.askJob}`,
      `/v1/jobs/${b.askJob}/events`,
      `/v1/sessions/${b.sid}`,
      `/v1/tenants/${b.tenantId}/audit`,
      `/v1/tenants/${b.tenantId}/keys`,
      `/v1/tenants/${b.tenantId}/rules`,
    ]) {
      const res = await send(s, "GET", path);
      expect(res.status, path).toBe(404);
      // At most the id asked for comes back, nothing of the job or its session.
      const text = await res.text();
      expect(text, path).not.toContain("touch a");
      if (!path.includes(b.sid)) expect(text, path).not.toContain(b.sid);
    }
    // Its own lists name none of B's ids.
    for (const path of ["/v1/approvals", "/v1/jobs", "/v1/sessions"]) {
      const text = await (await send(s, "GET", path)).text();
      expect(text, path).not.toContain(b.sid);
    }
    expect((await send(s, "GET", "/v1/tenants")).status).toBe(403);
    expect((await send(s, "POST", "/v1/tenants", {}, { name: "mine" })).status).toBe(403);
    expect((await send(s, "POST", `/v1/jobs/${b.askJob}/approval`, {}, { approve: true })).status).toBe(404);
    const job = await w.t.call("GET", `/v1/jobs/${b.askJob}`, { key: b.adminKey });
    expect(job.body.job.status).toBe("awaiting_approval");
  });
});

describe("the console's static files under probing", () => {
  it("an inherited property's name is no vendored library (404, not a 500)", async () => {
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const res = await w.t.app.request(`/console/assets/vendor/${name}`);
      expect(res.status, name).toBe(404);
    }
  });

  it("remembers only the files it found: unauthenticated misses do not grow its memory", async () => {
    const files = new StaticFiles(resolve(import.meta.dirname, "../../src/console/ui"), {}, "/v/");
    expect(await files.read("app.js")).toBeDefined();
    for (let i = 0; i < 500; i++) {
      expect(await files.read(`nope-${i}.js`)).toBeUndefined();
      expect(await files.read(`vendor/nope-${i}.mjs`)).toBeUndefined();
    }
    expect(files.cached).toBe(1);
  });
});

describe("what a browser is given to render", () => {
  it("every HTML answer forbids framing (clickjacking); errors are JSON, never HTML reflecting the path", async () => {
    for (const path of ["/console", "/console/approvals", "/console/jobs/job_x/y", "/docs"]) {
      const res = await w.t.app.request(path);
      expect(res.headers.get("content-type"), path).toMatch(/^text\/html/);
      expect(res.headers.get("content-security-policy"), path).toMatch(/frame-ancestors 'none'/);
    }
    const markup = encodeURIComponent("<img src=x onerror=alert(1)>");
    for (const path of [
      `/v1/${markup}`,
      `/console/assets/${markup}.js`,
      `/${markup}`,
      `/v1/jobs/${markup}`,
      `/console/session?${markup}`,
    ]) {
      const res = await w.t.app.request(path, { headers: { authorization: `Bearer ${w.a.adminKey}` } });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
    }
  });
});
