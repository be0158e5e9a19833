/**
 * A tenant's live API keys are bounded (attack25a): each is looked up on every request and listed
 * whole, and a tenant admin could otherwise add rows without limit at its request rate. Past the
 * bound a create is a 409 that says how to get a place back; creates racing at the last place
 * are never all kept (each counts with its own row written and takes itself back when over).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

const MAX = 5;
let t: Awaited<ReturnType<typeof createApiTestApp>>;
let a: Awaited<ReturnType<typeof seedTenant>>;

beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider(), { maxApiKeys: MAX });
  a = await seedTenant(t.call, "a");
});
afterEach(() => t.close());

const create = () =>
  t.call("POST", `/v1/tenants/${a.tenantId}/keys`, { key: a.adminKey, body: { role: "agent" } });
const live = async () => {
  const res = await t.call("GET", `/v1/tenants/${a.tenantId}/keys`, { key: a.adminKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.keys as { id: string; revokedAt: string | null }[]).filter((k) => !k.revokedAt);
};

describe("a tenant's API keys", () => {
  it("past the bound: a 409 saying how to make room; a revoked key frees its place", async () => {
    // seedTenant made two (agent, admin).
    for (let i = 2; i < MAX; i++) expect((await create()).status).toBe(201);
    const over = await create();
    expect(over.status, JSON.stringify(over.body)).toBe(409);
    expect(over.body.error.code).toBe("CONFLICT");
    expect(over.body.error.message).toBe(
      `a tenant may hold at most ${MAX} live API keys: revoke one (DELETE /v1/keys/{kid}) before creating another`,
    );
    const keys = await live();
    expect(keys).toHaveLength(MAX);
    // Another tenant is not held back by this one.
    const b = await seedTenant(t.call, "b");
    expect(b.agentKey).toMatch(/^tsk_/);
    const revoked = keys.at(-1)!;
    expect((await t.call("DELETE", `/v1/keys/${revoked.id}`, { key: a.adminKey })).status).toBe(204);
    expect((await create()).status).toBe(201);
    expect(await live()).toHaveLength(MAX);
  });

  it("creates racing at the last place are never all kept", async () => {
    for (let i = 2; i < MAX - 1; i++) expect((await create()).status).toBe(201);
    const answers = await Promise.all([create(), create(), create()]);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201).length).toBeLessThanOrEqual(1);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      JSON.stringify(statuses),
    ).toBe(true);
    expect((await live()).length).toBeLessThanOrEqual(MAX);
    // The keys answered 201 work; those refused were never stored.
    for (const r of answers.filter((x) => x.status === 201)) {
      const me = await t.call("GET", `/v1/sessions`, { key: r.body.key });
      expect(me.status).toBe(200);
    }
  });
});
