/**
 * Where a session's working directories may lie: at or below one of its tenant's
 * `workingDirectoryRoots`. accept_edits auto-allows writes inside the working directories, and the
 * agent's own key may set them (`POST`/`PATCH /v1/sessions`): unbounded, an agent widened its own
 * auto-allowed writes to the home (whose configuration changes what a narrowly allowed command
 * runs) or to `/` (attack22a). The roots are the tenant admin's to set.
 *
 * Checked when directories are set (a 400 naming each one outside), and again at every decision
 * and run: a directory stored before the tenant narrowed its roots is ignored from then on.
 */
import type { Db } from "../../db/db.js";
import type { SessionRow } from "../../db/rows.js";
import { ValidationError } from "../../errors.js";
import { isWithin, normalizePath } from "../../permission/paths.js";
import { SANDBOX_WORKSPACE } from "../../sandbox/sandbox.js";
import type { ToolRunContext } from "../../toolkit/run-context.js";
import { readTenantSettings, readTenantSettingsNow } from "../tenancy/tenant-settings.js";

type Session = Pick<SessionRow, "tenantId" | "home" | "workingDirectories">;

function insideRoots(dir: string, roots: readonly string[], home: string): boolean {
  const normal = normalizePath(dir, "/", home);
  return roots.some((root) => isWithin(normal, root));
}

/** 400 naming every directory that is not absolute or lies outside the tenant's roots. */
export async function checkWorkingDirectories(
  db: Db,
  session: Omit<Session, "workingDirectories">,
  dirs: readonly string[],
): Promise<void> {
  if (dirs.length === 0) return;
  // Read now: a tenant that just narrowed its roots must not see a wider set stored afterwards.
  const roots = (await readTenantSettingsNow(db, session.tenantId)).workingDirectoryRoots;
  const details = dirs.flatMap((d, i) => {
    const path = `workingDirectories[${i}]`;
    if (!d.startsWith("/") || d.includes("\0")) return [{ path, message: "must be an absolute path" }];
    if (insideRoots(d, roots, session.home)) return [];
    const message =
      `must be inside one of the tenant's workingDirectoryRoots (${roots.join(", ") || "none"}); ` +
      "a tenant_admin can add a root with PUT /v1/tenants/{tid}/settings";
    return [{ path, message }];
  });
  if (details.length > 0) throw new ValidationError("invalid working directories", details);
}

/**
 * The session's working directories that its tenant's roots allow now (from the per-process
 * settings cache: another process's change of the roots applies within its TTL).
 */
export async function sessionWorkingDirectories(db: Db, session: Session): Promise<string[]> {
  const dirs = session.workingDirectories;
  if (dirs.length === 0) return dirs;
  return (await runDirectories(db, session)).workingDirectories;
}

/**
 * What a run takes: those working directories, and the roots their real paths must stay in when
 * the sandbox resolves them (the tenant's and the workspace, where the cwd starts).
 */
export async function runDirectories(
  db: Db,
  session: Session,
): Promise<Pick<ToolRunContext, "workingDirectories" | "workingDirectoryRoots">> {
  const roots = (await readTenantSettings(db, session.tenantId)).workingDirectoryRoots;
  return {
    workingDirectories: session.workingDirectories.filter((d) => insideRoots(d, roots, session.home)),
    workingDirectoryRoots: [SANDBOX_WORKSPACE, ...roots],
  };
}
