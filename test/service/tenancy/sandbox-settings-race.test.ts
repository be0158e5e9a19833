/**
 * Tenant settings saved at the same moment from two processes (two handles on one database) on
 * SQLite and Postgres: each patch of the `sandbox` part is merged into what the other stored, so
 * neither is lost (the sandbox part is one JSON value, written whole).
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import type { Db } from "../../../src/db/db.js";
import { ConflictError } from "../../../src/errors.js";
import { SecretBox } from "../../../src/service/secret-box.js";
import type { Principal } from "../../../src/service/tenancy/principal.js";
import { putTenantSettings, readSandboxSettings } from "../../../src/service/tenancy/tenant-settings.js";
import { createTenant } from "../../../src/service/tenancy/tenants.js";
import { describeDialects } from "../../support/dialects.js";

const admin: Principal = { keyId: "key_platform", role: "admin", tenantId: null };
const sandboxPolicy = {
  defaultImage: "toolshed-sandbox:latest",
  imageAllowlist: [],
  caps: { memoryMb: 4096, cpus: 4, pids: 1024, diskMb: 4096 },
};
const secrets = SecretBox.fromKey(randomBytes(32));
/** Rounds of concurrent saves: one lost update in any round fails the test. */
const ROUNDS = 6;

describeDialects("concurrent sandbox-settings patches", (current) => {
  it("two patches of different sandbox keys saved at once both land", async () => {
    const { db, other } = current();
    const a = { db, sandboxPolicy, secrets };
    const b = { db: other, sandboxPolicy, secrets };
    const t = await createTenant({ db }, admin, { name: "race" });
    for (let i = 1; i <= ROUNDS; i++) {
      // Both read the stored settings before either writes (the first round also races the insert).
      const [ra, rb] = await Promise.all([
        putTenantSettings(a, admin, t.id, { sandbox: { memoryMb: 100 + i } }),
        putTenantSettings(b, admin, t.id, { sandbox: { pids: 200 + i, env: { ROUND: `${i}` } } }),
      ]);
      expect(ra.sandbox.memoryMb).toBe(100 + i);
      expect(rb.sandbox.pids).toBe(200 + i);
      const stored = await readSandboxSettings(db, t.id);
      expect(stored, `round ${i}`).toMatchObject({ memoryMb: 100 + i, pids: 200 + i, envNames: ["ROUND"] });
    }
  });

  it("a core field saved at once with a sandbox patch keeps both", async () => {
    const { db, other } = current();
    const t = await createTenant({ db }, admin, { name: "mixed" });
    for (let i = 1; i <= ROUNDS; i++) {
      await Promise.all([
        putTenantSettings({ db, sandboxPolicy, secrets }, admin, t.id, { sandbox: { cpus: i % 2 ? 1 : 2 } }),
        putTenantSettings({ db: other, sandboxPolicy, secrets }, admin, t.id, { approvalTtlSeconds: 60 + i }),
      ]);
      const after = await putTenantSettings({ db, sandboxPolicy, secrets }, admin, t.id, {});
      expect(after, `round ${i}`).toMatchObject({
        approvalTtlSeconds: 60 + i,
        sandbox: { cpus: i % 2 ? 1 : 2 },
      });
    }
  });

  it("a save that never finds the settings it read unchanged gives up with a 409, writing nothing", async () => {
    const { db } = current();
    const t = await createTenant({ db }, admin, { name: "busy" });
    await putTenantSettings({ db, sandboxPolicy, secrets }, admin, t.id, { sandbox: { pids: 7 } });
    // Every read sees a version that is no longer stored, as if another save always landed between.
    const stale = staleReads(db);
    await expect(
      putTenantSettings({ db: stale, sandboxPolicy, secrets }, admin, t.id, { sandbox: { memoryMb: 64 } }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await readSandboxSettings(db, t.id)).toEqual({ pids: 7 });
  });
});

/** `db`, whose selects return every row with an `updatedAt` of long ago. */
function staleReads(db: Db): Db {
  const chain = <T extends object>(builder: T): T =>
    new Proxy(builder, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (prop === "then") {
          return (ok: (v: unknown) => unknown, fail: (e: unknown) => unknown) =>
            (target as unknown as PromiseLike<Record<string, unknown>[]>)
              .then((rows) => rows.map((r) => ({ ...r, updatedAt: "2000-01-01T00:00:00.000Z" })))
              .then(ok, fail);
        }
        return (...args: unknown[]) => {
          const out = value.apply(target, args);
          return out && typeof out === "object" ? chain(out) : out;
        };
      },
    });
  return new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      return prop === "select" ? (...args: unknown[]) => chain(value.apply(target, args)) : value;
    },
  });
}
