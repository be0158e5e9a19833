/**
 * The console's Origin check behind a reverse proxy (attack24a): a proxy that rewrites `Host`
 * (nginx without `proxy_set_header Host`) made every console change a 403, since the browser's
 * Origin is the public one. `PUBLIC_URL` names the origin browsers use; it then is the only one
 * a change may come from (scheme and port included), whatever `Host` says.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

const PUBLIC = "https://toolshed.example.com";
// What the proxy sends on: its upstream's address as Host, the scheme in X-Forwarded-Proto.
const PROXIED = { host: "127.0.0.1:8080", "x-forwarded-proto": "https" };

type App = Awaited<ReturnType<typeof createApiTestApp>>;
let plain: App;
let behind: App;

beforeAll(async () => {
  plain = await createApiTestApp(new NullSandboxProvider());
  behind = await createApiTestApp(new NullSandboxProvider(), {}, { publicOrigin: PUBLIC });
});
afterAll(() => {
  plain?.close();
  behind?.close();
});

/** Signs in from `origin` through the proxy, then changes the tenant's rules with the cookie. */
async function signInAndChange(t: App, origin: string) {
  const a = await seedTenant(t.call);
  const headers = { ...PROXIED, origin, "content-type": "application/json" };
  const signIn = await t.app.request("/console/session", {
    method: "POST",
    headers,
    body: JSON.stringify({ key: a.adminKey }),
  });
  const signInBody = (await signIn.json()) as { csrfToken?: string; error?: { message: string } };
  if (signIn.status !== 200) return { signIn: signIn.status, message: signInBody.error?.message ?? "" };
  const cookie = /^(__Host-toolshed_console=[^;]+)/.exec(signIn.headers.get("set-cookie") ?? "")?.[1] ?? "";
  const put = await t.app.request(`/v1/tenants/${a.tenantId}/rules`, {
    method: "PUT",
    headers: { ...headers, cookie, "x-csrf-token": signInBody.csrfToken ?? "" },
    body: JSON.stringify({ allow: ["Read"], deny: [], ask: [] }),
  });
  const putBody = (await put.json()) as { error?: { message: string } };
  return { signIn: signIn.status, change: put.status, message: putBody.error?.message ?? "" };
}

describe("the console behind a proxy that rewrites Host", () => {
  it("without PUBLIC_URL: a 403 whose message says to set it", async () => {
    const r = await signInAndChange(plain, PUBLIC);
    expect(r.signIn).toBe(403);
    expect(r.message).toMatch(/PUBLIC_URL/);
  });

  it("with PUBLIC_URL: the public origin signs in and changes things", async () => {
    expect(await signInAndChange(behind, PUBLIC)).toEqual({ signIn: 200, change: 200, message: "" });
  });

  it("with PUBLIC_URL: any other origin is refused, the Host's own and the other scheme included", async () => {
    for (const origin of [
      "https://evil.example",
      "http://127.0.0.1:8080",
      "http://toolshed.example.com",
      "https://toolshed.example.com:8443",
      "null",
    ]) {
      const r = await signInAndChange(behind, origin);
      expect(r.signIn, origin).toBe(403);
    }
  });
});

describe("PUBLIC_URL", () => {
  it("is an origin: scheme, host and port", () => {
    expect(loadConfig({ PUBLIC_URL: "https://Toolshed.Example.com/" }).PUBLIC_URL).toBe(PUBLIC);
    expect(loadConfig({ PUBLIC_URL: "http://localhost:8080" }).PUBLIC_URL).toBe("http://localhost:8080");
    expect(loadConfig({}).PUBLIC_URL).toBeUndefined();
  });

  it.each([
    "toolshed.example.com",
    "ftp://toolshed.example.com",
    "https://toolshed.example.com/console",
    "https://u:p@toolshed.example.com",
    "https://toolshed.example.com/?x=1",
  ])("refuses %s, saying what it must be", (value) => {
    expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(/PUBLIC_URL: must be the origin browsers use/);
  });
});
