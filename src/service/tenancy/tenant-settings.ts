/**
 * Per-tenant switches and limits (`GET/PUT /v1/tenants/{tid}/settings`). Who may change what:
 * quotas are the platform's to set (a tenant must not raise its own limits), while the switches
 * that relax the tenant's own safety (bypass, agent approvals, approval TTL) are its admin's.
 */
import { and, eq } from "drizzle-orm";
import type { TenantSettingsPatch, TenantSettingsView } from "../../contracts/tenant.js";
import { type Db, first, type Tables, tablesOf } from "../../db/db.js";
import type { StoredSandboxSettings } from "../../db/rows.js";
import { ConflictError, ForbiddenError } from "../../errors.js";
import { normalizePath } from "../../permission/paths.js";
import type { PermissionMode } from "../../permission/types.js";
import { SANDBOX_HOME, SANDBOX_WORKSPACE } from "../../sandbox/sandbox.js";
import { nowIso } from "../clock.js";
import type { SecretBox } from "../secret-box.js";
import { tenantReadCache } from "../tenant-read-cache.js";
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
  // The workspace and the scratch directory: neither holds configuration that a command run as
  // the agent reads (the home does), and readers may write /tmp anyway.
  workingDirectoryRoots: [SANDBOX_WORKSPACE, "/tmp"],
};

type SettingsRow = Tables["tenantSettings"]["$inferSelect"];

async function storedRow(db: Db, tenantId: string): Promise<SettingsRow | undefined> {
  const { tenantSettings } = tablesOf(db);
  return first(db.select().from(tenantSettings).where(eq(tenantSettings.tenantId, tenantId)).limit(1));
}

function coreSettings(row: SettingsRow | undefined): CoreSettings {
  if (!row) return { ...DEFAULT_SETTINGS };
  const { allowBypass, agentsMayApprove, approvalTtlSeconds, quotas } = row;
  const workingDirectoryRoots = row.workingDirectoryRoots ?? DEFAULT_SETTINGS.workingDirectoryRoots;
  return { allowBypass, agentsMayApprove, approvalTtlSeconds, quotas, workingDirectoryRoots };
}

/**
 * The row as every call reads it (quotas, the approval TTL, the sandbox settings): cached per
 * process, so another process's change shows here within the cache's TTL. Frozen: it is shared.
 */
const cachedRows = tenantReadCache<SettingsRow | undefined>();

function cachedRow(db: Db, tenantId: string): Promise<SettingsRow | undefined> {
  return cachedRows.get(db, tenantId, async () => {
    const row = await storedRow(db, tenantId);
    if (row)
      Object.freeze(
        Object.assign(row, { quotas: Object.freeze(row.quotas), sandbox: Object.freeze(row.sandbox) }),
      );
    return row;
  });
}

/**
 * The settings or the defaults, no role check, for the quotas and the approval TTL: up to the
 * cache's TTL old when another process changed them. A check that relaxes the tenant's safety
 * (`allowBypass`, `agentsMayApprove`) reads them now, with readTenantSettingsNow.
 */
export async function readTenantSettings(db: Db, tenantId: string): Promise<CoreSettings> {
  return coreSettings(await cachedRow(db, tenantId));
}

/** The stored settings or the defaults as the database holds them now; no role check. */
export async function readTenantSettingsNow(db: Db, tenantId: string): Promise<CoreSettings> {
  return coreSettings(await storedRow(db, tenantId));
}

/**
 * The tenant's stored sandbox settings (empty when none), no role check; from the cache like
 * readTenantSettings: a container another process's change missed gets it when next created.
 */
export async function readSandboxSettings(db: Db, tenantId: string): Promise<StoredSandboxSettings> {
  return (await cachedRow(db, tenantId))?.sandbox ?? {};
}

/** The view of a stored row (one read serves both parts). */
function response(row: SettingsRow | undefined): TenantSettingsView {
  return { ...coreSettings(row), sandbox: sandboxSettingsView(row?.sandbox ?? {}) };
}

export async function getTenantSettings(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
): Promise<TenantSettingsView> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  return response(await storedRow(deps.db, tenantId));
}

/**
 * How many times a save reads the settings again after another save changed them in between
 * (each round at least one of the competing saves lands, so this many saves at once all land).
 */
const SAVE_ATTEMPTS = 8;

/** Merges the given fields into the stored settings (fields left out keep their value). */
export async function putTenantSettings(
  deps: { db: Db; sandboxPolicy: SandboxPolicy; secrets: SecretBox },
  p: Principal,
  tenantId: string,
  patch: TenantSettingsPatch,
): Promise<TenantSettingsView> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  if (patch.quotas !== undefined && p.role !== "admin") {
    throw new ForbiddenError("quotas are set by the platform admin; a tenant_admin may only read them");
  }
  const { sandbox: sandboxPatch, workingDirectoryRoots: roots, ...others } = patch;
  // Stored normal (`/data/../srv/` as `/srv`), as the bound compares them; null: the default.
  const rest = {
    ...others,
    ...(roots !== undefined ? { workingDirectoryRoots: roots && [...new Set(roots.map(normalRoot))] } : {}),
  };
  // The sandbox part is one JSON value merged here, so a save is a read-merge-write: it writes
  // only if the row still has the `updatedAt` it read (compare-and-set), else reads again.
  // `updatedAt` serves as the row's version because every save makes it strictly greater.
  try {
    for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
      const stored = await storedRow(deps.db, tenantId);
      const current = stored?.sandbox ?? {};
      const sandbox = sandboxPatch ? applySandboxPatch(deps, tenantId, current, sandboxPatch) : current;
      const updatedAt = laterStamp(stored?.updatedAt);
      // Only the fields this patch names: a save of other fields that lands first keeps its values.
      const written = stored
        ? await saveIfUnchanged(deps.db, stored, { ...rest, ...(sandboxPatch ? { sandbox } : {}), updatedAt })
        : await insertIfAbsent(deps.db, {
            tenantId,
            ...coreSettings(undefined),
            workingDirectoryRoots: null,
            ...rest,
            sandbox,
            updatedAt,
          });
      if (written) return response(written);
    }
  } finally {
    // Landed or not, this process reads the row again: a competing save may have landed.
    cachedRows.invalidate(deps.db, tenantId);
  }
  throw new ConflictError(
    `the settings of tenant ${tenantId} kept changing while this change was saved; send it again`,
  );
}

type SettingsWrite = Partial<Omit<SettingsRow, "tenantId">> & { updatedAt: string };

async function saveIfUnchanged(db: Db, stored: SettingsRow, set: SettingsWrite) {
  const { tenantSettings } = tablesOf(db);
  const [row] = await db
    .update(tenantSettings)
    .set(set)
    .where(and(eq(tenantSettings.tenantId, stored.tenantId), eq(tenantSettings.updatedAt, stored.updatedAt)))
    .returning();
  return row;
}

async function insertIfAbsent(db: Db, row: SettingsRow) {
  const { tenantSettings } = tablesOf(db);
  const [written] = await db.insert(tenantSettings).values(row).onConflictDoNothing().returning();
  return written;
}

function normalRoot(dir: string): string {
  return normalizePath(dir, "/", SANDBOX_HOME);
}

/** Now, or just after `previous` when the clock has not passed it (same millisecond, clock skew). */
function laterStamp(previous: string | undefined): string {
  const now = nowIso();
  if (!previous || now > previous) return now;
  return new Date(Date.parse(previous) + 1).toISOString();
}

/** `bypass` is off unless the tenant allows it: asking for it otherwise is a 403. */
export async function assertModeAllowed(
  db: Db,
  tenantId: string,
  mode: PermissionMode | undefined,
): Promise<void> {
  if (mode !== "bypass" || (await readTenantSettingsNow(db, tenantId)).allowBypass) return;
  throw new ForbiddenError(
    "mode 'bypass' is not allowed for this tenant (a tenant_admin can enable it with allowBypass in the tenant settings)",
  );
}

/**
 * The mode a session's calls are decided in now: a `bypass` session of a tenant that has since
 * turned `allowBypass` off decides as `default` (from its next call; turning it on again restores
 * bypass). The stored mode is left as it was.
 */
export async function effectiveMode(
  db: Db,
  session: { tenantId: string; mode: PermissionMode },
): Promise<PermissionMode> {
  const { mode } = session;
  // Read now, not cached: a tenant that turns bypass off must not get it from another process.
  if (mode !== "bypass" || (await readTenantSettingsNow(db, session.tenantId)).allowBypass) return mode;
  return "default";
}
