/** API keys: hashing, revocation and the bootstrap admin key. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { OpenedDb } from "../../../src/db/open.js";
import { apiKeys } from "../../../src/db/schema.js";
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

it("generates the admin key once when none is configured, and stores only its hash", () => {
  const key = ensureAdminKey({ db: store.db }, undefined);
  expect(key).toMatch(/^tsk_/);
  expect(ensureAdminKey({ db: store.db }, undefined)).toBeUndefined();
  const rows = store.db.select().from(apiKeys).all();
  expect(rows).toHaveLength(1);
  expect(rows[0]!.hash).not.toContain(key!);
  expect(authenticate({ db: store.db }, key)).toMatchObject({ role: "admin", tenantId: null });
});

it("a configured admin key is accepted; unknown keys are 401", () => {
  ensureAdminKey({ db: store.db }, "configured-admin-key-123456");
  expect(authenticate({ db: store.db }, "configured-admin-key-123456").role).toBe("admin");
  expect(() => authenticate({ db: store.db }, "other")).toThrow(UnauthenticatedError);
  expect(() => authenticate({ db: store.db }, undefined)).toThrow(UnauthenticatedError);
});
