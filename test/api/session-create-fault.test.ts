/**
 * Creating a session writes its row, then counts the tenant's sessions again; a failed count takes
 * the row back. When that fails too (the database busy or gone), the row is stored: a 503
 * ("nothing was created") made the client send the create again, each retry one more session.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { sessions } from "../../src/db/schema.js";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

const fault = vi.hoisted(() => ({ onRecount: undefined as Error | undefined }));
vi.mock("../../src/service/tenancy/quotas.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/service/tenancy/quotas.js")>();
  return {
    ...real,
    checkSessionQuota: async (...args: Parameters<typeof real.checkSessionQuota>) => {
      if (args[2] && fault.onRecount) throw fault.onRecount;
      return real.checkSessionQuota(...args);
    },
  };
});

let t: Awaited<ReturnType<typeof createApiTestApp>>;
afterEach(() => {
  fault.onRecount = undefined;
  return t?.close();
});

describe("a session created when the recount fails", () => {
  it("taken back: 503, nothing stored", async () => {
    t = await createApiTestApp(new NullSandboxProvider());
    const a = await seedTenant(t.call);
    fault.onRecount = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    const res = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(t.deps.db.select().from(sessions).all()).toHaveLength(0);
  });

  it("not taken back either: 201 with the stored session, not 503", async () => {
    t = await createApiTestApp(new NullSandboxProvider());
    const a = await seedTenant(t.call);
    fault.onRecount = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    const db = t.deps.db as { delete: unknown };
    const realDelete = db.delete;
    db.delete = () => {
      throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    };
    const res = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
    db.delete = realDelete;
    const rows = t.deps.db.select().from(sessions).all();
    expect(rows).toHaveLength(1);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.id).toBe(rows[0]!.id);
  });
});
