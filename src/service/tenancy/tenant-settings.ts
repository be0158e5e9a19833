/**
 * Per-tenant switches and limits (`GET/PUT /v1/tenants/{tid}/settings`). Who may change what:
 * quotas are the platform's to set (a tenant must not raise its own limits), while the switches
 * that relax the tenant's own safety (bypass, agent approvals, approval TTL) are its admin's.
 */
import { eq } from "drizzle-orm";
import type { TenantSettingsPatch, TenantSettingsView } from "../../contracts/tenant.js";
import type { Db } from "../../db/open.js";
import { type StoredSandboxSettings, tenantSettings } from "../../db/schema.js";
import { ForbiddenError } from "../../errors.js";
import type { PermissionMode } from "../../permission/types.js";
import { nowIso } from "../clock.js";
import type { SecretBox } from "../secret-box.js";
import { type Principal, requireRole } from "./principal.js";
import { applySandboxPatch, type SandboxPolicy, sandboxSettingsView } from "./sandbox-settings.js";
import { loadTenant } from "./tenants.js";

/** The settings without the sandbox part (what readTenantSettings returns for the verbs). */
type CoreSettings = Omit<TenantSettingsView, "sandbox">;

export const DEFAULT_SETTINGS: CoreSettings = {
  allowBypass: false,
  agentsMayApprove: false,
  approvalTtlSeconds: 3600,
  quotas: {},
};

function storedRow(db: Db, tenantId: string) {
  return db.select().from(tenantSettings).where(eq(tenantSettings.tenantId, tenantId)).get();
}

/** The stored settings or the defaults; no role check (used by other verbs). */
export function readTenantSettings(db: Db, tenantId: string): CoreSettings {
  const row = storedRow(db, tenantId);
  if (!row) return { ...DEFAULT_SETTINGS };
  const { allowBypass, agentsMayApprove, approvalTtlSeconds, quotas } = row;
  return { allowBypass, agentsMayApprove, approvalTtlSeconds, quotas };
}

/** The tenant's stored sandbox settings (empty when none); no role check. */
export function readSandboxSettings(db: Db, tenantId: string): StoredSandboxSettings {
  return storedRow(db, tenantId)?.sandbox ?? {};
}

function response(db: Db, tenantId: string): TenantSettingsView {
  return {
    ...readTenantSettings(db, tenantId),
    sandbox: sandboxSettingsView(readSandboxSettings(db, tenantId)),
  };
}

export function getTenantSettings(deps: { db: Db }, p: Principal, tenantId: string): TenantSettingsView {
  requireRole(p, ["tenant_admin"]);
  loadTenant(deps, p, tenantId);
  return response(deps.db, tenantId);
}

/** Merges the given fields into the stored settings (fields left out keep their value). */
export function putTenantSettings(
  deps: { db: Db; sandboxPolicy: SandboxPolicy; secrets: SecretBox },
  p: Principal,
  tenantId: string,
  patch: TenantSettingsPatch,
): TenantSettingsView {
  requireRole(p, ["tenant_admin"]);
  loadTenant(deps, p, tenantId);
  if (patch.quotas !== undefined && p.role !== "admin") {
    throw new ForbiddenError("quotas are set by the platform admin; a tenant_admin may only read them");
  }
  const { sandbox: sandboxPatch, ...rest } = patch;
  const current = readSandboxSettings(deps.db, tenantId);
  const sandbox = sandboxPatch ? applySandboxPatch(deps, tenantId, current, sandboxPatch) : current;
  const next = { ...readTenantSettings(deps.db, tenantId), ...rest, sandbox, updatedAt: nowIso() };
  deps.db
    .insert(tenantSettings)
    .values({ tenantId, ...next })
    .onConflictDoUpdate({ target: tenantSettings.tenantId, set: next })
    .run();
  return response(deps.db, tenantId);
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
