/**
 * The session toolkit on real SQLite: external tools join `basic` (or a group), configuration
 * that went stale after it was stored is dropped instead of breaking the tenant's sessions, a
 * clash that cannot be dropped is a 409, and reset_tools' new set is persisted per session.
 */

import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { externalTools, sessions, toolGroups } from "../../../src/db/schema.js";
import { ConflictError } from "../../../src/errors.js";
import { sessionToolkit } from "../../../src/service/sessions/build-toolkit.js";
import {
  listSessionTools,
  resolveSessionTool,
  saveActiveGroups,
} from "../../../src/service/sessions/tool-list.js";
import { invalidateTenantConfig } from "../../../src/service/tool-config/tenant-config-cache.js";
import { createApiTestApp, seedTenant } from "../../support/harness.js";
import { NullSandboxProvider } from "../../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let a: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;
const agent = () => ({ keyId: "k", role: "agent" as const, tenantId: a.tenantId });
const session = () => t.deps.db.select().from(sessions).where(eq(sessions.id, sid)).get()!;
const now = new Date().toISOString();
const lookup = {
  name: "lookup",
  description: "Looks things up.",
  inputSchema: { type: "object", properties: { q: { type: "string" } } },
};

beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  a = await seedTenant(t.call);
  t.deps.db
    .insert(externalTools)
    .values({ tenantId: a.tenantId, tools: [lookup], updatedAt: now })
    .run();
  const put = await t.call("PUT", `/v1/tenants/${a.tenantId}/tool-groups`, {
    key: a.adminKey,
    body: [{ name: "research", description: "Research.", tools: ["lookup", "Grep"] }],
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  sid = (await t.call("POST", "/v1/sessions", { key: a.agentKey, body: { tools: ["Read", "Grep"] } })).body
    .id;
});
afterEach(() => t.close());

const names = async () => (await listSessionTools(t.deps, agent(), sid)).tools.map((x) => x.name);

describe("session toolkit", () => {
  it("groups may claim external tools; the active set is persisted per session", async () => {
    expect(await names()).toEqual(["reset_tools", "Read"]);
    expect(await resolveSessionTool(t.deps, session(), "lookup")).toMatchObject({ inactive: true });
    await saveActiveGroups(t.deps.db, sid, ["research"]);
    expect(await names()).toEqual(["reset_tools", "Read", "lookup", "Grep"]);
    expect(await resolveSessionTool(t.deps, session(), "lookup")).toMatchObject({ inactive: false });
  });

  it("a member that vanished after the groups were stored is dropped, not fatal", async () => {
    await saveActiveGroups(t.deps.db, sid, ["research", "gone"]);
    // Written behind the service's back: invalidate as the service's own writers do.
    t.deps.db.update(externalTools).set({ tools: [] }).where(eq(externalTools.tenantId, a.tenantId)).run();
    invalidateTenantConfig(t.deps.db, a.tenantId);
    expect(await names()).toEqual(["reset_tools", "Read", "Grep"]);
    t.deps.db.delete(toolGroups).where(eq(toolGroups.tenantId, a.tenantId)).run();
    invalidateTenantConfig(t.deps.db, a.tenantId);
    expect(await names()).toEqual(["Read", "Grep"]);
  });

  it("a clash that cannot be dropped is a 409 naming it", async () => {
    const md = "---\nname: lookup\ndescription: Clashes.\n---\n";
    // The upload itself is refused (400 on SKILL.md) while the external tool exists...
    const up = await t.call("POST", `/v1/tenants/${a.tenantId}/skills`, {
      key: a.adminKey,
      body: { files: { "SKILL.md": md } },
    });
    expect(up.status, JSON.stringify(up.body)).toBe(400);
    expect(up.body.error.details[0].path).toBe("SKILL.md");
    // ...but an external tool declared after the skill can still clash with it.
    t.deps.db.update(externalTools).set({ tools: [] }).where(eq(externalTools.tenantId, a.tenantId)).run();
    await t.call("PUT", `/v1/tenants/${a.tenantId}/tool-groups`, { key: a.adminKey, body: [] });
    expect(
      (
        await t.call("POST", `/v1/tenants/${a.tenantId}/skills`, {
          key: a.adminKey,
          body: { files: { "SKILL.md": md } },
        })
      ).status,
    ).toBe(201);
    t.deps.db
      .update(externalTools)
      .set({ tools: [lookup] })
      .where(eq(externalTools.tenantId, a.tenantId))
      .run();
    await expect(names()).rejects.toThrow(ConflictError);
    const res = await t.call("GET", `/v1/sessions/${sid}/tools`, { key: a.agentKey });
    expect(res.status, JSON.stringify(res.body)).toBe(409);
  });

  it("a built toolkit is shared by calls that would build the same one, and never outlives a change", async () => {
    const first = await sessionToolkit(t.deps, session());
    expect(await sessionToolkit(t.deps, session())).toBe(first);
    expect(Object.isFrozen(first.activeGroups)).toBe(true);
    // The session's own choices are part of what was built.
    await saveActiveGroups(t.deps.db, sid, ["research"]);
    const active = await sessionToolkit(t.deps, session());
    expect(active).not.toBe(first);
    expect(active.activeGroups).toEqual(["research"]);
    // A decorated build (the worker's crash guard) is its own.
    const wrap = (tool: Parameters<NonNullable<Parameters<typeof sessionToolkit>[2]>["wrap"] & {}>[0]) =>
      tool;
    const wrapped = await sessionToolkit(t.deps, session(), { wrap });
    expect(wrapped).not.toBe(active);
    expect(await sessionToolkit(t.deps, session(), { wrap })).toBe(wrapped);
    // A configuration written in this process is seen at once: a new build.
    const put = await t.call("PUT", `/v1/tenants/${a.tenantId}/tool-groups`, {
      key: a.adminKey,
      body: [{ name: "research", description: "Research.", tools: ["lookup"] }],
    });
    expect(put.status).toBe(200);
    const changed = await sessionToolkit(t.deps, session());
    expect(changed).not.toBe(active);
    // Grep left the group: it is basic again for this session, which chose it.
    expect(changed.listing.tools.map((x) => x.name)).toEqual(["reset_tools", "Read", "Grep", "lookup"]);
  });
});
