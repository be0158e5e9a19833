/** API keys: hashing, revocation and the bootstrap admin key. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { tablesOf } from "../../../src/db/db.js";
import type { OpenedDb } from "../../../src/db/open.js";
import { NotFoundError, UnauthenticatedError } from "../../../src/errors.js";
import {
  authenticate,
  createKey,
  ensureAdminKey,
  listKeys,
  revokeKey,
} from "../../../src/service/tenancy/api-keys.js";
import { createTenant } from "../../../src/service/tenancy/tenants.js";
import { openTestDb } from "../../support/test-db.js";

let dir: string;
let store: OpenedDb;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tsk-"));
  store = openTestDb(join(dir, "t.db"));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

it("generates the admin key once when none is configured, and stores only its hash", async () => {
  const key = await ensureAdminKey({ db: store.db }, undefined);
  expect(key).toMatch(/^tsk_/);
  expect(await ensureAdminKey({ db: store.db }, undefined)).toBeUndefined();
  const { apiKeys } = tablesOf(store.db);
  const rows = await store.db.select().from(apiKeys);
  expect(rows).toHaveLength(1);
  expect(rows[0]!.hash).not.toContain(key!);
  expect(await authenticate({ db: store.db }, key)).toMatchObject({ role: "admin", tenantId: null });
});

it("a configured admin key is accepted; unknown keys are 401", async () => {
  await ensureAdminKey({ db: store.db }, "configured-admin-key-123456");
  expect((await authenticate({ db: store.db }, "configured-admin-key-123456")).role).toBe("admin");
  await expect(authenticate({ db: store.db }, "other")).rejects.toThrow(UnauthenticatedError);
  await expect(authenticate({ db: store.db }, undefined)).rejects.toThrow(UnauthenticatedError);
});

it("a configured admin key is stored once, also when processes start together", async () => {
  const key = "configured-admin-key-123456";
  await Promise.all([1, 2, 3].map(() => ensureAdminKey({ db: store.db }, key)));
  await ensureAdminKey({ db: store.db }, key);
  const { apiKeys } = tablesOf(store.db);
  expect(await store.db.select().from(apiKeys)).toHaveLength(1);
  expect((await authenticate({ db: store.db }, key)).role).toBe("admin");
});

it("a revoked key is refused; revoking is the tenant's own business (another tenant's key is a 404)", async () => {
  const admin = { keyId: "key_admin", role: "admin" as const, tenantId: null };
  const a = await createTenant({ db: store.db }, admin, { name: "a" });
  const b = await createTenant({ db: store.db }, admin, { name: "b" });
  const keyA = await createKey({ db: store.db }, admin, a.id, { role: "tenant_admin" });
  const keyB = await createKey({ db: store.db }, admin, b.id, { role: "agent", name: "bot" });
  const principalA = await authenticate({ db: store.db }, keyA.key);
  expect(principalA).toMatchObject({ role: "tenant_admin", tenantId: a.id });
  await expect(revokeKey({ db: store.db }, principalA, keyB.id)).rejects.toThrow(NotFoundError);
  expect((await authenticate({ db: store.db }, keyB.key)).tenantId).toBe(b.id);
  expect(await listKeys({ db: store.db }, admin, b.id)).toEqual([
    expect.objectContaining({ id: keyB.id, role: "agent", name: "bot", revokedAt: null }),
  ]);
  await revokeKey({ db: store.db }, admin, keyB.id);
  await expect(authenticate({ db: store.db }, keyB.key)).rejects.toThrow(/revoked/);
  await expect(revokeKey({ db: store.db }, admin, keyB.id)).rejects.toThrow(NotFoundError);
  expect((await listKeys({ db: store.db }, admin, b.id))[0]!.revokedAt).not.toBeNull();
});
