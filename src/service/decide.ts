/** The policy layer's entry: the engine with the session's mode, directories and rules. */
import type { Db } from "../db/open.js";
import type { SessionRow, StoredDecision } from "../db/schema.js";
import { checkPermission } from "../permission/engine.js";
import type { PermissionContext, ToolInput } from "../permission/types.js";
import type { ToolBase } from "../toolkit/tool-base.js";
import { parseRulesOrThrow, readTenantRules } from "./rules.js";

/** The permission context of a call in this session: tenant rules first, then session rules. */
export function permissionContext(db: Db, session: SessionRow): PermissionContext {
  const tenant = parseRulesOrThrow(readTenantRules(db, session.tenantId), "tenant");
  const own = parseRulesOrThrow(session.rules, "session");
  return {
    mode: session.mode as PermissionContext["mode"],
    cwd: session.cwd,
    home: session.home,
    workingDirectories: session.workingDirectories,
    rules: {
      allow: [...tenant.allow, ...own.allow],
      deny: [...tenant.deny, ...own.deny],
      ask: [...tenant.ask, ...own.ask],
    },
  };
}

/** Decides one call; pure apart from reading the rules. */
export function decideCall(db: Db, session: SessionRow, tool: ToolBase, input: ToolInput): StoredDecision {
  const ctx = permissionContext(db, session);
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
  };
}
