/** The authenticated caller and the role / tenant checks every verb applies. */
import type { KeyRole } from "../../db/schema.js";
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
  throw new ForbiddenError(`a ${p.role} key may not do this (needs ${roles.join(" or ")})`);
}

/** Another tenant's resource answers exactly as a missing one does. */
export function requireTenant(p: Principal, tenantId: string, resource: string, id: string): void {
  if (p.role !== "admin" && p.tenantId !== tenantId) throw new NotFoundError(resource, id);
}

/** The tenant a non-admin caller acts for. */
export function callerTenant(p: Principal): string {
  if (p.tenantId === null) throw new ForbiddenError("the platform admin key has no tenant: use a tenant key");
  return p.tenantId;
}
