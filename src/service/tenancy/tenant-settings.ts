/**
 * Per-tenant switches and limits (`GET/PUT /v1/tenants/{tid}/settings`). Who may change what:
 * quotas are the platform's to set (a tenant must not raise its own limits), while the switches
 * that relax the tenant's own safety (bypass, agent approvals, approval TTL) are its admin's.
 */
import { eq } from "drizzle-orm";
import type { TenantSettingsPatch, TenantSettingsView } from "../../contracts/tenant.js";
import type { Db } from "../../db/open.js";
import { tenantSettings } from "../../db/schema.js";
import { ForbiddenError } from "../../errors.js";
import type { PermissionMode } from "../../permission/types.js";
import { nowIso } from "../clock.js";
import { type Principal, requireRole } from "./principal.js";
import { loadTenant } from "./tenants.js";

export const DEFAULT_SETTINGS: TenantSettingsView = {
  allowBypass: false,
  agentsMayApprove: false,
  approvalTtlSeconds: 3600,
  quotas: {},
};

/** The stored settings or the defaults; no role check (used by other verbs). */
export function readTenantSettings(db: Db, tenantId: string): TenantSettingsView {
  const row = db.select().from(tenantSettings).where(eq(tenantSettings.tenantId, tenantId)).get();
  if (!row) return { ...DEFAULT_SETTINGS };
  const { allowBypass, agentsMayApprove, approvalTtlSeconds, quotas } = row;
  return { allowBypass, agentsMayApprove, approvalTtlSeconds, quotas };
}

export function getTenantSettings(deps: { db: Db }, p: Principal, tenantId: string): TenantSettingsView {
  requireRole(p, ["tenant_admin"]);
  loadTenant(deps, p, tenantId);
  return readTenantSettings(deps.db, tenantId);
}

/** Merges the given fields into the stored settings (fields left out keep their value). */
export function putTenantSettings(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
  patch: TenantSettingsPatch,
): TenantSettingsView {
  requireRole(p, ["tenant_admin"]);
  loadTenant(deps, p, tenantId);
  if (patch.quotas !== undefined && p.role !== "admin") {
    throw new ForbiddenError("quotas are set by the platform admin; a tenant_admin may only read them");
  }
  const next = { ...readTenantSettings(deps.db, tenantId), ...patch, updatedAt: nowIso() };
  deps.db
    .insert(tenantSettings)
    .values({ tenantId, ...next })
    .onConflictDoUpdate({ target: tenantSettings.tenantId, set: next })
    .run();
  return readTenantSettings(deps.db, tenantId);
}

/** `bypass` is off unless the tenant allows it: asking for it otherwise is a 403. */
export function assertModeAllowed(db: Db, tenantId: string, mode: PermissionMode | undefined): void {
  if (mode !== "bypass" || readTenantSettings(db, tenantId).allowBypass) return;
  throw new ForbiddenError(
    "mode 'bypass' is not allowed for this tenant (a tenant_admin can enable it with allowBypass in the tenant settings)",
  );
}

/**
 * The mode a session's calls are decided in now: a `bypass` session of a tenant that has since
 * turned `allowBypass` off decides as `default` (from its next call; turning it on again restores
 * bypass). The stored mode is left as it was.
 */
export function effectiveMode(db: Db, session: { tenantId: string; mode: PermissionMode }): PermissionMode {
  const { mode } = session;
  if (mode !== "bypass" || readTenantSettings(db, session.tenantId).allowBypass) return mode;
  return "default";
}
