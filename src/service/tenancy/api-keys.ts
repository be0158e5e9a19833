/** API keys: created (secret shown once), revoked, authenticated by hash; the bootstrap admin key. */
import { createHash, randomBytes } from "node:crypto";
import { and, count, eq, isNull } from "drizzle-orm";
import type { KeyView } from "../../contracts/tenant.js";
import { type Db, dialectOf, first, tablesOf } from "../../db/db.js";
import { preparedFor } from "../../db/prepared.js";
import type { ApiKeyRow, KeyRole } from "../../db/rows.js";
import { ConflictError, NotFoundError, UnauthenticatedError } from "../../errors.js";
import { nowIso } from "../clock.js";
import { newId } from "../ids.js";
import type { Quotas } from "../ports.js";
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

/** Live keys a tenant may hold when the operator sets no TENANT_MAX_API_KEYS. */
export const DEFAULT_MAX_API_KEYS = 100;

export async function createKey(
  deps: { db: Db; quotas?: Pick<Quotas, "maxApiKeys"> },
  p: Principal,
  tenantId: string,
  input: { role: "agent" | "tenant_admin"; name?: string },
): Promise<CreatedKey> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const key = newKeySecret();
  const id = newId("key");
  const { apiKeys } = tablesOf(deps.db);
  await deps.db.insert(apiKeys).values({
    id,
    tenantId,
    role: input.role,
    name: input.name ?? null,
    hash: hashKey(key),
    createdAt: nowIso(),
  });
  await withinKeyBound(deps, tenantId, id);
  return { id, key, role: input.role, ...(input.name ? { name: input.name } : {}) };
}

/**
 * Counted with the new key written, so that creates racing at the bound (in any process) cannot
 * all pass: one over it takes itself back (two at the last place may both be refused, never both
 * kept). Each key is looked up on every request and listed whole, so their number is bounded.
 */
async function withinKeyBound(
  deps: { db: Db; quotas?: Pick<Quotas, "maxApiKeys"> },
  tenantId: string,
  id: string,
): Promise<void> {
  const max = deps.quotas?.maxApiKeys ?? DEFAULT_MAX_API_KEYS;
  const { apiKeys } = tablesOf(deps.db);
  const takeBack = () => deps.db.delete(apiKeys).where(eq(apiKeys.id, id));
  let live: { n: number } | undefined;
  try {
    live = await first(
      deps.db
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt))),
    );
  } catch (err) {
    // Its secret is never shown: a key no one holds must not take a place.
    await takeBack().catch(() => undefined);
    throw err;
  }
  if ((live?.n ?? 0) <= max) return;
  await takeBack();
  throw new ConflictError(
    `a tenant may hold at most ${max} live API keys: revoke one (DELETE /v1/keys/{kid}) before creating another`,
  );
}

export async function revokeKey(deps: { db: Db }, p: Principal, keyId: string): Promise<void> {
  requireRole(p, ["tenant_admin"]);
  const { apiKeys } = tablesOf(deps.db);
  const row = await first(deps.db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1));
  if (!row || row.revokedAt) throw new NotFoundError("key", keyId);
  // Tenant admins manage their own tenant's keys; platform keys belong to no tenant.
  requireTenant(p, row.tenantId ?? "", "key", keyId);
  await deps.db.update(apiKeys).set({ revokedAt: nowIso() }).where(eq(apiKeys.id, keyId));
}

/** The caller behind a bearer secret; 401 when unknown or revoked. */
export async function authenticate(deps: { db: Db }, secret: string | undefined): Promise<Principal> {
  if (!secret) throw new UnauthenticatedError("missing Authorization: Bearer <key>");
  const row = await liveKeyByHash(deps.db, hashKey(secret));
  if (!row) throw new UnauthenticatedError("invalid or revoked API key");
  return { keyId: row.id, role: row.role, tenantId: row.tenantId };
}

/**
 * The live key with this hash, looked up on every request. On SQLite through the prepared
 * statement (building the SQL per call costs more than the lookup); prepared.ts holds SQLite
 * statements only, so Postgres runs the builder (one query either way).
 */
async function liveKeyByHash(db: Db, hash: string): Promise<ApiKeyRow | undefined> {
  if (dialectOf(db) === "sqlite") return preparedFor(db).liveKeyByHash.get({ hash });
  const { apiKeys } = tablesOf(db);
  return first(
    db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
      .limit(1),
  );
}

/**
 * Makes sure a platform admin key exists: the configured one, else one generated now. Returns
 * the generated secret (to be printed once) or undefined.
 */
export async function ensureAdminKey(
  deps: { db: Db },
  configured: string | undefined,
): Promise<string | undefined> {
  const { apiKeys } = tablesOf(deps.db);
  if (configured) {
    // One statement, so that API processes starting together on one database do not race.
    await deps.db
      .insert(apiKeys)
      .values({
        id: newId("key"),
        tenantId: null,
        role: "admin",
        name: "configured",
        hash: hashKey(configured),
        createdAt: nowIso(),
      })
      .onConflictDoNothing({ target: apiKeys.hash });
    return undefined;
  }
  const existing = await first(
    deps.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.role, "admin"), isNull(apiKeys.revokedAt)))
      .limit(1),
  );
  if (existing) return undefined;
  const key = newKeySecret();
  await deps.db.insert(apiKeys).values({
    id: newId("key"),
    tenantId: null,
    role: "admin",
    name: "generated",
    hash: hashKey(key),
    createdAt: nowIso(),
  });
  return key;
}

/** The tenant's keys without secrets or hashes (revoked ones included, marked). */
export async function listKeys(deps: { db: Db }, p: Principal, tenantId: string): Promise<KeyView[]> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const { apiKeys } = tablesOf(deps.db);
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
    .orderBy(apiKeys.createdAt);
}
