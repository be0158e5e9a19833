/**
 * Two tenants with one of everything (sessions, an ask job, an external job, a queued job, a
 * finished job, spare keys) for the per-endpoint security tests and the policy scenarios.
 */
import { expect } from "vitest";
import type { RuleStrings } from "../../src/db/schema.js";
import { ADMIN_KEY, createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

export const LOOKUP_TOOL = {
  name: "lookup",
  description: "Looks a customer up in the client's CRM.",
  inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  readOnly: true,
};

const RULES = { allow: ["Read", "lookup"], deny: ["Bash(rm:*)"], ask: ["Bash(touch:*)"] };

export type App = Awaited<ReturnType<typeof createApiTestApp>>;

async function seedSide(t: App, name: string) {
  const s = await seedTenant(t.call, name);
  const call = (key: string, method: string, path: string, body?: unknown) =>
    t.call(method, path, { key, ...(body === undefined ? {} : { body }) });
  await call(s.adminKey, "PUT", `/v1/tenants/${s.tenantId}/tools`, [LOOKUP_TOOL]);
  await call(s.adminKey, "PUT", `/v1/tenants/${s.tenantId}/rules`, RULES);
  const sid = (await call(s.agentKey, "POST", "/v1/sessions", {})).body.id as string;
  const submit = async (tool: string, input: object) =>
    (await call(s.agentKey, "POST", `/v1/sessions/${sid}/calls`, { tool, input })).body.job;
  const askJob = (await submit("Bash", { command: "touch a" })).id as string;
  const extJob = (await submit("lookup", { q: "acme" })).id as string;
  const queuedJob = (await submit("Read", { file_path: "/workspace/a" })).id as string;
  const deniedJob = (await submit("Bash", { command: "rm a" })).id as string;
  const spare = await call(s.adminKey, "POST", `/v1/tenants/${s.tenantId}/keys`, { role: "agent" });
  return { ...s, sid, askJob, extJob, queuedJob, deniedJob, spareKeyId: spare.body.id as string };
}

export async function twoTenants() {
  const t = await createApiTestApp(new NullSandboxProvider());
  const a = await seedSide(t, "a");
  const b = await seedSide(t, "b");
  // Revoked keys of every role, to show that revocation is a 401 everywhere.
  const revoked: Record<string, string> = {};
  for (const role of ["agent", "tenant_admin"] as const) {
    const k = await t.call("POST", `/v1/tenants/${a.tenantId}/keys`, { key: ADMIN_KEY, body: { role } });
    await t.call("DELETE", `/v1/keys/${k.body.id}`, { key: ADMIN_KEY });
    revoked[role] = k.body.key;
  }
  return { t, a, b, revoked };
}

export type World = Awaited<ReturnType<typeof twoTenants>>;

/** One test's world for the scenario files: a fresh app, a tenant and a session. */
export interface TenantCase {
  t: App;
  a: Awaited<ReturnType<typeof seedTenant>>;
  sid: string;
}

/** The short helpers the scenario files use, over whichever case `cur` returns now. */
export function scenarioHelpers(cur: () => TenantCase) {
  const as = (key: string, method: string, path: string, body?: unknown) =>
    cur().t.call(method, path, { key, ...(body === undefined ? {} : { body }) });
  const rules = (body: { allow?: string[]; deny?: string[]; ask?: string[] }) =>
    as(cur().a.adminKey, "PUT", `/v1/tenants/${cur().a.tenantId}/rules`, {
      allow: [],
      deny: [],
      ask: [],
      ...body,
    });
  const settings = (body: object, key = cur().a.adminKey) =>
    as(key, "PUT", `/v1/tenants/${cur().a.tenantId}/settings`, body);
  const submit = async (tool: string, input: object, session = cur().sid) => {
    const res = await as(cur().a.agentKey, "POST", `/v1/sessions/${session}/calls`, { tool, input });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body.job;
  };
  const approve = (jid: string, body: object, key = cur().a.adminKey) =>
    as(key, "POST", `/v1/jobs/${jid}/approval`, body);
  const newSession = async (body: object = {}) =>
    (await as(cur().a.agentKey, "POST", "/v1/sessions", body)).body.id;
  return { as, rules, settings, submit, approve, newSession };
}

/** A fresh case: its own app, a seeded tenant (with `rules`, if given) and one session. */
export async function newTenantCase(rules?: Partial<RuleStrings>): Promise<TenantCase> {
  const t = await createApiTestApp(new NullSandboxProvider());
  const a = await seedTenant(t.call);
  if (rules) {
    const body = { allow: [], deny: [], ask: [], ...rules };
    await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, { key: a.adminKey, body });
  }
  const s = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
  return { t, a, sid: s.body.id };
}
