/** Per-tenant quotas answer 429 RATE_LIMITED with Retry-After, and only for that tenant. */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider(), { maxSessions: 2, callsPerMinute: 2 });
});
afterEach(() => t.close());

it("limits active sessions and calls per minute per tenant", async () => {
  const a = await seedTenant(t.call, "a");
  const b = await seedTenant(t.call, "b");
  const s1 = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
  expect(s1.status, JSON.stringify(s1.body)).toBe(201);
  const s2 = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
  expect(s2.status, JSON.stringify(s2.body)).toBe(201);
  const third = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
  expect(third.status, JSON.stringify(third.body)).toBe(429);
  expect(third.body.error.code).toBe("RATE_LIMITED");
  expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
  expect((await t.call("POST", "/v1/sessions", { key: b.agentKey, body: {} })).status).toBe(201);

  const call = () =>
    t.call("POST", `/v1/sessions/${s1.body.id}/calls`, {
      key: a.agentKey,
      body: { tool: "Read", input: { file_path: "/workspace/a" } },
    });
  expect((await call()).status).toBe(202);
  expect((await call()).status).toBe(202);
  const over = await call();
  expect(over.status, JSON.stringify(over.body)).toBe(429);
  expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
});
