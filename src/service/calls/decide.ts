/** The policy layer's entry: the engine with the session's mode, directories and rules. */
import type { Db } from "../../db/db.js";
import type { RuleStrings, SessionRow, StoredDecision } from "../../db/rows.js";
import { checkPermission } from "../../permission/engine.js";
import type { PermissionContext, ToolInput } from "../../permission/types.js";
import type { ToolBase } from "../../toolkit/tool-base.js";
import type { McpToolSet } from "../../toolkit/tool-group.js";
import { loadSession, sessionCwd } from "../sessions/sessions.js";
import {
  inactiveCall,
  resolveSessionTool,
  type SessionToolsDeps,
  sessionMcpTools,
} from "../sessions/tool-list.js";
import { sessionWorkingDirectories } from "../sessions/working-directories.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { effectiveMode } from "../tenancy/tenant-settings.js";
import { parseRulesOrThrow, readTenantRules } from "../tool-config/rules.js";
import { validateToolInput } from "./tool-input.js";

/**
 * The permission context of a call in this session: tenant rules first, then session rules; the
 * mode and the working directories as the tenant's settings allow them now.
 */
export async function permissionContext(
  db: Db,
  session: SessionRow,
  tenantRules?: RuleStrings,
): Promise<PermissionContext> {
  const tenant = parseRulesOrThrow(tenantRules ?? (await readTenantRules(db, session.tenantId)), "tenant");
  const own = parseRulesOrThrow(session.rules, "session");
  const mode = await effectiveMode(db, session);
  const workingDirectories = await sessionWorkingDirectories(db, session);
  return {
    mode,
    cwd: sessionCwd({ ...session, workingDirectories }),
    home: session.home,
    workingDirectories,
    rules: {
      allow: [...tenant.allow, ...own.allow],
      deny: [...tenant.deny, ...own.deny],
      ask: [...tenant.ask, ...own.ask],
    },
  };
}

/**
 * Decides one call; pure apart from reading the rules. `tenantRules`, when given, is the set to
 * apply instead of reading the stored one: a submit's, read with its session in one statement,
 * or a rules dry run's proposed set.
 */
export async function decideCall(
  db: Db,
  session: SessionRow,
  tool: ToolBase,
  input: ToolInput,
  tenantRules?: RuleStrings,
): Promise<StoredDecision> {
  const ctx = await permissionContext(db, session, tenantRules);
  const d = checkPermission(tool, input, ctx);
  return {
    behavior: d.behavior,
    message: d.message,
    reason: d.reason,
    ...(d.rule ? { rule: d.rule } : {}),
    mode: ctx.mode,
    bypassImmune: d.bypassImmune,
    suggestions: d.suggestions ?? [],
    decidedBy: d.decidedBy,
    ...(allowedAsReadOnly(tool, input, ctx, d) ? { readOnly: true } : {}),
  };
}

/**
 * Allowed because it only reads: by the tool's own check, or by a mode that lets reads through
 * (accept_edits, explore). Not bypass: there the user allowed everything, reads or not.
 */
function allowedAsReadOnly(
  tool: ToolBase,
  input: ToolInput,
  ctx: PermissionContext,
  d: { behavior: string; decidedBy: string },
): boolean {
  if (d.behavior !== "allow" || (d.decidedBy !== "tool" && d.decidedBy !== "mode") || ctx.mode === "bypass") {
    return false;
  }
  try {
    return tool.checkReadOnly(input, ctx);
  } catch {
    return false;
  }
}

/** What the engine would decide for this call now, without running or recording anything. */
export async function dryRunDecision(
  deps: SessionToolsDeps,
  p: Principal,
  sessionId: string,
  body: { tool: string; input: unknown },
  opts: { tenantRules?: RuleStrings; mcps?: McpToolSet[] } = {},
): Promise<StoredDecision> {
  requireRole(p, ["agent", "tenant_admin"]);
  const session = await loadSession(deps.db, p, sessionId);
  const resolved = await resolveSessionTool(
    deps,
    session,
    body.tool,
    opts.mcps ?? (await sessionMcpTools(deps, session)),
  );
  if (resolved.inactive) return inactiveCall(session, resolved.message).decision;
  const tool = resolved.tool;
  return decideCall(deps.db, session, tool, validateToolInput(tool, body.input), opts.tenantRules);
}
