/**
 * The per-process configuration caches (service/tenant-read-cache.ts) seen through the API: one
 * tenant's cached settings and webhook never answer for another, and a change made in this
 * process bites on the very next call (no TTL to wait out).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_KEY, createApiTestApp, seedBashTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
beforeAll(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
});
afterAll(() => t.close());

const bash = { tool: "Bash", input: { command: "true" } };

it("a quota change is enforced on the next call, for that tenant only", async () => {
  const a = await seedBashTenant(t.call, "cache-a");
  const b = await seedBashTenant(t.call, "cache-b");
  const session = async (key: string) => (await t.call("POST", "/v1/sessions", { key, body: {} })).body.id;
  const [sa, sb] = [await session(a.agentKey), await session(b.agentKey)];
  const submit = (key: string, sid: string) =>
    t.call("POST", `/v1/sessions/${sid}/calls`, { key, body: bash });
  // Both tenants' settings read (and cached) by a call first.
  expect((await submit(a.agentKey, sa)).status).toBe(202);
  expect((await submit(b.agentKey, sb)).status).toBe(202);

  const put = await t.call("PUT", `/v1/tenants/${a.tenantId}/settings`, {
    key: ADMIN_KEY,
    body: { quotas: { maxActiveCalls: 1 }, approvalTtlSeconds: 77 },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  // No worker runs here: A's first call is still active, so its next one is refused at once...
  const refused = await submit(a.agentKey, sa);
  expect(refused.status, JSON.stringify(refused.body)).toBe(429);
  // ...while B keeps the defaults, and its settings read show none of A's.
  expect((await submit(b.agentKey, sb)).status).toBe(202);
  const bSettings = await t.call("GET", `/v1/tenants/${b.tenantId}/settings`, { key: b.adminKey });
  expect(bSettings.body.quotas?.maxActiveCalls).toBeUndefined();
  expect(bSettings.body.approvalTtlSeconds).not.toBe(77);

  await t.call("PUT", `/v1/tenants/${a.tenantId}/settings`, {
    key: ADMIN_KEY,
    body: { quotas: { maxActiveCalls: 10 } },
  });
  expect((await submit(a.agentKey, sa)).status).toBe(202);
});
