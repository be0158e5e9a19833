/**
 * A session's tools as the model sees them, and how a submitted call's name resolves.
 *
 * Seam note (issue 5): `resolveSessionTool(deps, session, name)` replaces
 * `resolveTool(deps.tools, name, session)` from tool-input.ts for calls (submit-call.ts) and dry
 * runs (decide.ts). It resolves against the session's whole toolkit (built-ins, task tools,
 * external tools, group tools, `reset_tools`, `Skill`): an unknown name is still a 400 on `tool`;
 * a tool of an inactive group comes back as `{inactive: true, message}` and its call is recorded
 * `failed` at once with that message (`inactiveCall`), without validation or a decision.
 * `deps` needs `skillFiles` and `logger` besides `db` and `tools` (ServiceDeps has them).
 */
import { and, eq } from "drizzle-orm";
import { type Db, tablesOf } from "../../db/db.js";
import type { SessionRow, StoredDecision, StoredResult } from "../../db/rows.js";
import { ValidationError } from "../../errors.js";
import type { SessionToolListing } from "../../toolkit/session-toolkit.js";
import type { ToolBase } from "../../toolkit/tool-base.js";
import type { McpToolSet } from "../../toolkit/tool-group.js";
import { textResult } from "../calls/job-view.js";
import type { ServiceDeps } from "../ports.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { attemptHolds, type RunAttempt } from "../worker/attempt-fence.js";
import { type SessionToolkitDeps, sessionToolkit } from "./build-toolkit.js";
import { sessionMcpToolSets } from "./mcp-clients.js";
import { loadSession } from "./sessions.js";

export type SessionTools = SessionToolListing;

/** Listing also needs the MCP runtime and the sandboxes (stdio servers are listed in the sandbox). */
export type SessionToolsDeps = SessionToolkitDeps &
  Pick<ServiceDeps, "mcp" | "sandboxes" | "skillFiles" | "secrets" | "hostRpc">;

/** The tenant's MCP tool sets for `session`, for callers of `resolveSessionTool`. */
export function sessionMcpTools(
  deps: SessionToolsDeps,
  session: Pick<SessionRow, "id" | "tenantId">,
): Promise<McpToolSet[]> {
  return sessionMcpToolSets(deps.mcp, deps, session);
}

/** `GET /v1/sessions/{sid}/tools`: the active tools in the reference's order and the skills prompt. */
export async function listSessionTools(
  deps: SessionToolsDeps,
  p: Principal,
  sid: string,
): Promise<SessionTools> {
  requireRole(p, ["agent"]);
  const session = await loadSession(deps.db, p, sid);
  const mcps = await sessionMcpToolSets(deps.mcp, deps, session);
  return (await sessionToolkit(deps, session, { mcps })).listing;
}

/** What a call's tool name names in this session now. */
export type ResolvedTool =
  | { tool: ToolBase; inactive: false }
  | { tool: ToolBase; inactive: true; message: string };

/** Resolves a call's tool; an unknown name is a 400 on `tool` (the contract since v1). */
export async function resolveSessionTool(
  deps: SessionToolkitDeps,
  session: SessionRow,
  name: string,
  mcps?: McpToolSet[],
): Promise<ResolvedTool> {
  const { toolkit, activeGroups } = await sessionToolkit(deps, session, { mcps });
  const found = toolkit.resolve(name, activeGroups);
  if (found.ok) return { tool: found.tool, inactive: false };
  const tool = toolkit.groupOf(name) ? toolkit.getTool(name) : undefined;
  if (tool) return { tool, inactive: true, message: found.message };
  throw new ValidationError(`unknown tool ${name}`, [
    { path: "tool", message: `no tool named ${JSON.stringify(name)} in this session` },
  ]);
}

/** The decision and result of a call of an inactive group's tool: `failed`, never run or decided. */
export function inactiveCall(
  session: Pick<SessionRow, "mode">,
  message: string,
): { decision: StoredDecision; result: StoredResult } {
  return {
    decision: {
      behavior: "deny",
      message,
      reason: "The tool's group is inactive; the call was not run.",
      mode: session.mode,
      bypassImmune: false,
      suggestions: [],
      decidedBy: "tool",
    },
    result: textResult(message, "error"),
  };
}

/** `reset_tools` changed the session's active groups; with `by`, as setSessionCwd: false when superseded. */
export async function saveActiveGroups(
  db: Db,
  sessionId: string,
  groups: string[],
  by?: RunAttempt,
): Promise<boolean> {
  const { sessions } = tablesOf(db);
  const done = await db
    .update(sessions)
    .set({ activeGroups: groups })
    .where(and(eq(sessions.id, sessionId), by ? attemptHolds(db, by) : undefined))
    .returning({ id: sessions.id });
  return done.length > 0;
}
