/** The authenticated caller and the role / tenant checks every verb applies. */
import type { KeyRole } from "../../db/rows.js";
import { ForbiddenError, NotFoundError } from "../../errors.js";

export interface Principal {
  keyId: string;
  role: KeyRole;
  /** null for the platform admin. */
  tenantId: string | null;
}

/** Throws 403 unless the caller has one of `roles`; the platform admin may do everything. */
export function requireRole(p: Principal, roles: readonly KeyRole[]): void {
  if (p.role === "admin" || roles.includes(p.role)) return;
  throw new ForbiddenError(`${keyPhrase(p.role)} may not do this: ${neededPhrase(roles)}`);
}

/** "an agent key", "a tenant_admin key", "the platform admin key". */
function keyPhrase(role: KeyRole): string {
  if (role === "admin") return "the platform admin key";
  return `${role === "agent" ? "an" : "a"} ${role} key`;
}

/** What the caller would need, in words: the roles allowed besides the platform admin. */
function neededPhrase(roles: readonly KeyRole[]): string {
  const others = roles.filter((r) => r !== "admin");
  if (others.length === 0) return "it needs the platform admin key";
  return `it needs ${others.map(keyPhrase).join(" or ")} (or the platform admin key)`;
}

/** Another tenant's resource answers exactly as a missing one does. */
export function requireTenant(
  p: Principal,
  tenantId: string,
  resource: string,
  id: string,
  hint?: string,
): void {
  if (p.role !== "admin" && p.tenantId !== tenantId) throw new NotFoundError(resource, id, hint);
}

/** The tenant a non-admin caller acts for. */
export function callerTenant(p: Principal): string {
  if (p.tenantId === null) throw new ForbiddenError("the platform admin key has no tenant: use a tenant key");
  return p.tenantId;
}
