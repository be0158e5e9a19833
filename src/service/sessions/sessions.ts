/** Session verbs: a session is a tenant's sandbox plus its mode, directories and rules. */

import { and, eq, gt, inArray } from "drizzle-orm";
import type { SessionView } from "../../contracts/session.js";
import { atomically, type Db, tablesOf } from "../../db/db.js";
import type { JobStatus, RuleStrings, SessionRow } from "../../db/rows.js";
import { NotFoundError, ValidationError } from "../../errors.js";
import { cwdOrWorkspace } from "../../permission/paths.js";
import type { PermissionMode } from "../../permission/types.js";
import { SANDBOX_HOME, SANDBOX_WORKSPACE } from "../../sandbox/sandbox.js";
import type { ToolBase } from "../../toolkit/tool-base.js";
import { publishState } from "../calls/job-transitions.js";
import { cancelledResult } from "../calls/job-view.js";
import { nowIso } from "../clock.js";
import { newId } from "../ids.js";
import type { ServiceDeps, ToolRegistry } from "../ports.js";
import { callerTenant, type Principal, requireRole, requireTenant } from "../tenancy/principal.js";
import { checkSessionQuota } from "../tenancy/quotas.js";
import { assertModeAllowed } from "../tenancy/tenant-settings.js";
import { EMPTY_RULES } from "../tool-config/rules.js";
import { getSkillRecords } from "../tool-config/tenant-skill-loader.js";
import { attemptHolds, type RunAttempt } from "../worker/attempt-fence.js";
import { getToolGroups } from "./build-toolkit.js";
import { sessionById, sessionWithRules } from "./session-row.js";
import { checkWorkingDirectories, sessionWorkingDirectories } from "./working-directories.js";

/**
 * Where the session's next call starts, and where accept_edits lets its writes through: the
 * stored cwd while it is in the workspace or a working directory, else the workspace. A PATCH
 * that takes a working directory away thus takes away a cwd Bash left in it (attack22c), even one a
 * call running during the PATCH stores afterwards (Bash checks against the directories it started with).
 */
export function sessionCwd(row: Pick<SessionRow, "cwd" | "home" | "workingDirectories">): string {
  return cwdOrWorkspace(row.cwd, SANDBOX_WORKSPACE, row);
}

/** The API's view of a session row; `effective` are the working directories the tenant's roots let count now. */
export function toSessionView(row: SessionRow, registry: ToolRegistry, effective: string[]): SessionView {
  return {
    id: row.id,
    mode: row.mode,
    cwd: sessionCwd(row),
    home: row.home,
    workingDirectories: row.workingDirectories,
    effectiveWorkingDirectories: effective,
    status: row.status,
    rules: row.rules,
    tools: sessionTools(registry, row).map((t) => t.name),
    ...(row.hostId ? { hostId: row.hostId } : {}),
    ...(row.workspaceLost ? { workspaceLost: true as const } : {}),
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
  };
}

/** The view with the working directories that count now, read as a decision reads them. */
export async function sessionView(db: Db, row: SessionRow, registry: ToolRegistry): Promise<SessionView> {
  return toSessionView(row, registry, await sessionWorkingDirectories(db, row));
}

/** The active session if the caller's tenant owns it; 404 otherwise. */
export async function loadSession(db: Db, p: Principal, sessionId: string): Promise<SessionRow> {
  return activeOwned(await sessionById(db, sessionId), p, sessionId);
}

/**
 * loadSession for a call: with the tenant's rules its decision applies (EMPTY_RULES when none
 * are stored), read with the session in one statement (session-row.ts).
 */
export async function loadSessionForCall(
  db: Db,
  p: Principal,
  sessionId: string,
): Promise<{ session: SessionRow; tenantRules: RuleStrings }> {
  const row = activeOwned(await sessionWithRules(db, sessionId), p, sessionId);
  const { tenantRules, ...session } = row;
  return { session, tenantRules: tenantRules ?? EMPTY_RULES };
}

function activeOwned<T extends SessionRow>(row: T | undefined, p: Principal, sessionId: string): T {
  if (row?.status !== "active") throw new NotFoundError("session", sessionId);
  requireTenant(p, row.tenantId, "session", sessionId);
  return row;
}

/** The session's tools, in the registry's order. */
export function sessionTools(registry: ToolRegistry, row: Pick<SessionRow, "tools">): ToolBase[] {
  const all = registry.list();
  return row.tools ? all.filter((t) => row.tools?.includes(t.name)) : [...all];
}

function checkToolNames(registry: ToolRegistry, names: readonly string[]): void {
  const details = names.flatMap((n, i) =>
    registry.get(n) ? [] : [{ path: `tools[${i}]`, message: `no built-in tool named ${JSON.stringify(n)}` }],
  );
  if (details.length > 0) throw new ValidationError("unknown tools", details);
}

/** Names a session picks from its tenant's configuration; each unknown one is a 400 naming it. */
function checkTenantNames(
  field: string,
  names: readonly string[],
  known: readonly string[],
  kind: string,
): void {
  const details = names.flatMap((n, i) =>
    known.includes(n) ? [] : [{ path: `${field}[${i}]`, message: `no ${kind} named ${JSON.stringify(n)}` }],
  );
  if (details.length > 0) throw new ValidationError(`unknown ${kind}s`, details);
}

export async function createSession(
  deps: Pick<ServiceDeps, "db" | "tools" | "quotas">,
  p: Principal,
  input: {
    mode?: PermissionMode;
    workingDirectories?: string[];
    tools?: string[];
    toolGroups?: string[];
    skills?: string[];
  },
): Promise<SessionView> {
  requireRole(p, ["agent", "tenant_admin"]);
  const tenantId = callerTenant(p);
  await assertModeAllowed(deps.db, tenantId, input.mode);
  await checkWorkingDirectories(deps.db, { tenantId, home: SANDBOX_HOME }, input.workingDirectories ?? []);
  if (input.tools) checkToolNames(deps.tools, input.tools);
  const groups = (await getToolGroups(deps.db, tenantId)).map((g) => g.name);
  if (input.toolGroups) checkTenantNames("toolGroups", input.toolGroups, groups, "tool group");
  if (input.skills) {
    const known = (await getSkillRecords(deps.db, tenantId)).map((s) => s.name);
    checkTenantNames("skills", input.skills, known, "skill");
  }
  await checkSessionQuota(deps, tenantId);
  const now = nowIso();
  const row: SessionRow = {
    id: newId("ses"),
    tenantId,
    mode: input.mode ?? "default",
    cwd: SANDBOX_WORKSPACE,
    home: SANDBOX_HOME,
    workingDirectories: input.workingDirectories ?? [],
    rules: { allow: [], deny: [], ask: [] },
    tools: input.tools ? [...new Set(input.tools)] : null,
    toolGroups: input.toolGroups ? [...new Set(input.toolGroups)] : null,
    skills: input.skills ? [...new Set(input.skills)] : null,
    // The named groups start active, in the tenant's registration order (as reset_tools stores them).
    activeGroups: groups.filter((g) => input.toolGroups?.includes(g)),
    status: "active",
    nextSeq: 1,
    hostId: null,
    workspaceLost: false,
    createdAt: now,
    lastUsedAt: now,
  };
  const { sessions } = tablesOf(deps.db);
  await deps.db.insert(sessions).values(row);
  // Counted again with the row written: creates running at once (in this process or another)
  // all passed the check above before any wrote. Over the quota, this one is withdrawn (when
  // several are, all of them may be: a refusal too many, never a session too many).
  // A refusal (or a failed count) takes the row back. Should that fail too, the session is stored
  // and is answered: a 429 or 503 says nothing was created, and the client's retry would make
  // another (over the quota by one only when the database failed twice).
  try {
    await checkSessionQuota(deps, tenantId, true);
  } catch (err) {
    if (await takenBack(deps.db, row.id)) throw err;
  }
  return sessionView(deps.db, row, deps.tools);
}

/** Deletes the session row just written; false when the database would not. */
async function takenBack(db: Db, sessionId: string): Promise<boolean> {
  const { sessions } = tablesOf(db);
  try {
    await db.delete(sessions).where(eq(sessions.id, sessionId));
    return true;
  } catch {
    return false;
  }
}

export async function getSession(
  deps: { db: Db; tools: ToolRegistry },
  p: Principal,
  sessionId: string,
): Promise<SessionView> {
  requireRole(p, ["agent", "tenant_admin"]);
  return sessionView(deps.db, await loadSession(deps.db, p, sessionId), deps.tools);
}

export async function updateSession(
  deps: { db: Db; tools: ToolRegistry },
  p: Principal,
  sessionId: string,
  input: { mode?: PermissionMode; workingDirectories?: string[] },
): Promise<SessionView> {
  requireRole(p, ["agent", "tenant_admin"]);
  const row = await loadSession(deps.db, p, sessionId);
  await assertModeAllowed(deps.db, row.tenantId, input.mode);
  if (input.workingDirectories) await checkWorkingDirectories(deps.db, row, input.workingDirectories);
  // Only the fields given: a concurrent update of the other field (read before this one wrote)
  // keeps its value.
  const set = {
    ...(input.mode ? { mode: input.mode } : {}),
    ...(input.workingDirectories ? { workingDirectories: input.workingDirectories } : {}),
    lastUsedAt: nowIso(),
  };
  const { sessions } = tablesOf(deps.db);
  const [written] = await deps.db.update(sessions).set(set).where(eq(sessions.id, sessionId)).returning();
  return sessionView(deps.db, written ?? { ...row, ...set }, deps.tools);
}

/** Jobs of a deleted session that end `cancelled` at once (running ones are cancelled by their worker). */
const CANCELLED_ON_DELETE: JobStatus[] = ["queued", "awaiting_approval", "awaiting_external"];

/** Marks the session deleted, cancels its pending jobs, then removes its container and workspace. */
export async function deleteSession(
  deps: Pick<ServiceDeps, "db" | "sandboxes" | "logger" | "cancels" | "events" | "store">,
  p: Principal,
  sessionId: string,
): Promise<void> {
  requireRole(p, ["agent", "tenant_admin"]);
  await loadSession(deps.db, p, sessionId);
  const now = nowIso();
  // The jobs to cancel over the bus and to publish come from the writes themselves: a read before
  // the transaction would miss a job claimed (or queued) in between, whose command would then run
  // to its end after the session is gone.
  const [, unstarted, retried, running] = await atomically(deps.db, (tx) => {
    const { jobs, readCache, sessions } = tablesOf(tx);
    // A job queued again after an attempt (its sandbox died mid-run) may have partly run: its
    // result says so (cancelledResult), as a cancel's would.
    const cancel = (started: boolean) =>
      tx
        .update(jobs)
        .set({
          status: "cancelled",
          finishedAt: now,
          cancelRequested: true,
          result: cancelledResult(started ? 1 : 0),
        })
        .where(
          and(
            eq(jobs.sessionId, sessionId),
            inArray(jobs.status, CANCELLED_ON_DELETE),
            started ? gt(jobs.runs, 0) : eq(jobs.runs, 0),
          ),
        )
        .returning({ id: jobs.id });
    return [
      tx.update(sessions).set({ status: "deleted", lastUsedAt: now }).where(eq(sessions.id, sessionId)),
      cancel(false),
      cancel(true),
      tx
        .update(jobs)
        .set({ cancelRequested: true })
        .where(and(eq(jobs.sessionId, sessionId), eq(jobs.status, "running")))
        .returning({ id: jobs.id }),
      tx.delete(readCache).where(eq(readCache.sessionId, sessionId)),
    ];
  });
  await Promise.all(running.map((j) => deps.cancels.requestCancel(j.id).catch(() => undefined)));
  // Their followers (job streams, the approvals stream) learn that they ended.
  for (const j of [...unstarted, ...retried]) await publishState(deps, j.id);
  try {
    await deps.sandboxes.remove(sessionId);
  } catch (err) {
    deps.logger.warn({ err, sessionId }, "removing the session sandbox failed; the reaper will retry");
  }
}

/** Ids of sessions that still own a sandbox (for `reapOrphans`). */
export async function liveSessionIds(db: Db): Promise<Set<string>> {
  const { sessions } = tablesOf(db);
  const rows = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.status, "active"));
  return new Set(rows.map((r) => r.id));
}

/**
 * Bash moved the session's working directory. With `by` (a run), only while that attempt still
 * holds its job: false, nothing written, when another worker took it over.
 */
export async function setSessionCwd(
  db: Db,
  sessionId: string,
  cwd: string,
  by?: RunAttempt,
): Promise<boolean> {
  const { sessions } = tablesOf(db);
  const done = await db
    .update(sessions)
    .set({ cwd, lastUsedAt: nowIso() })
    .where(and(eq(sessions.id, sessionId), by ? attemptHolds(db, by) : undefined))
    .returning({ id: sessions.id });
  return done.length > 0;
}
