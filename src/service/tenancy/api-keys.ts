/** API keys: created (secret shown once), revoked, authenticated by hash; the bootstrap admin key. */
import { createHash, randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { KeyView } from "../../contracts/tenant.js";
import type { Db } from "../../db/open.js";
import { preparedFor } from "../../db/prepared.js";
import { apiKeys, type KeyRole } from "../../db/schema.js";
import { NotFoundError, UnauthenticatedError } from "../../errors.js";
import { nowIso } from "../clock.js";
import { newId } from "../ids.js";
import { type Principal, requireRole, requireTenant } from "./principal.js";
import { loadTenant } from "./tenants.js";

/** A new API key secret; only its hash is stored. */
export function newKeySecret(): string {
  return `tsk_${randomBytes(32).toString("base64url")}`;
}

/** Keys are looked up by their SHA-256 (a fast hash suffices: secrets are 256 random bits). */
export function hashKey(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export interface CreatedKey {
  id: string;
  key: string;
  role: KeyRole;
  name?: string;
}

export function createKey(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
  input: { role: "agent" | "tenant_admin"; name?: string },
): CreatedKey {
  requireRole(p, ["tenant_admin"]);
  loadTenant(deps, p, tenantId);
  const key = newKeySecret();
  const id = newId("key");
  deps.db
    .insert(apiKeys)
    .values({
      id,
      tenantId,
      role: input.role,
      name: input.name ?? null,
      hash: hashKey(key),
      createdAt: nowIso(),
    })
    .run();
  return { id, key, role: input.role, ...(input.name ? { name: input.name } : {}) };
}

export function revokeKey(deps: { db: Db }, p: Principal, keyId: string): void {
  requireRole(p, ["tenant_admin"]);
  const row = deps.db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).get();
  if (!row || row.revokedAt) throw new NotFoundError("key", keyId);
  // Tenant admins manage their own tenant's keys; platform keys belong to no tenant.
  requireTenant(p, row.tenantId ?? "", "key", keyId);
  deps.db.update(apiKeys).set({ revokedAt: nowIso() }).where(eq(apiKeys.id, keyId)).run();
}

/** The caller behind a bearer secret; 401 when unknown or revoked. */
export function authenticate(deps: { db: Db }, secret: string | undefined): Principal {
  if (!secret) throw new UnauthenticatedError("missing Authorization: Bearer <key>");
  const row = preparedFor(deps.db).liveKeyByHash.get({ hash: hashKey(secret) });
  if (!row) throw new UnauthenticatedError("invalid or revoked API key");
  return { keyId: row.id, role: row.role, tenantId: row.tenantId };
}

/**
 * Makes sure a platform admin key exists: the configured one, else one generated now. Returns
 * the generated secret (to be printed once) or undefined.
 */
export function ensureAdminKey(deps: { db: Db }, configured: string | undefined): string | undefined {
  if (configured) {
    const hash = hashKey(configured);
    const found = deps.db.select().from(apiKeys).where(eq(apiKeys.hash, hash)).get();
    if (!found) {
      deps.db
        .insert(apiKeys)
        .values({
          id: newId("key"),
          tenantId: null,
          role: "admin",
          name: "configured",
          hash,
          createdAt: nowIso(),
        })
        .run();
    }
    return undefined;
  }
  const existing = deps.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.role, "admin"), isNull(apiKeys.revokedAt)))
    .get();
  if (existing) return undefined;
  const key = newKeySecret();
  deps.db
    .insert(apiKeys)
    .values({
      id: newId("key"),
      tenantId: null,
      role: "admin",
      name: "generated",
      hash: hashKey(key),
      createdAt: nowIso(),
    })
    .run();
  return key;
}

/** The tenant's keys without secrets or hashes (revoked ones included, marked). */
export function listKeys(deps: { db: Db }, p: Principal, tenantId: string): KeyView[] {
  requireRole(p, ["tenant_admin"]);
  loadTenant(deps, p, tenantId);
  return deps.db
    .select({
      id: apiKeys.id,
      role: apiKeys.role,
      name: apiKeys.name,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.tenantId, tenantId))
    .orderBy(apiKeys.createdAt)
    .all();
}
