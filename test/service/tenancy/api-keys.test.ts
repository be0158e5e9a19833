/** API keys: hashing, revocation and the bootstrap admin key. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { tablesOf } from "../../../src/db/db.js";
import type { OpenedDb } from "../../../src/db/open.js";
import { UnauthenticatedError } from "../../../src/errors.js";
import { authenticate, ensureAdminKey } from "../../../src/service/tenancy/api-keys.js";
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
