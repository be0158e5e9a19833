/**
 * A tenant's external tools (`PUT /v1/tenants/{tid}/tools`): declared with a name, description
 * and JSON schema, never run by Toolshed; their calls wait in `awaiting_external`.
 */

import { eq } from "drizzle-orm";
import { type Db, first, tablesOf } from "../../db/db.js";
import type { ExternalToolDef } from "../../db/rows.js";
import { type ErrorDetail, ValidationError } from "../../errors.js";
import { externalTool } from "../../toolkit/external-tool.js";
import { nowIso } from "../clock.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { loadTenant } from "../tenancy/tenants.js";
import { schemaProblem } from "./json-schema.js";
import { invalidateTenantConfig } from "./tenant-config-cache.js";

export type { ExternalToolDef } from "../../db/rows.js";

/** The tenant's external tools (empty when none were declared); no role check, for the toolkit. */
export async function getExternalTools(db: Db, tenantId: string): Promise<ExternalToolDef[]> {
  const { externalTools } = tablesOf(db);
  const row = await first(
    db.select().from(externalTools).where(eq(externalTools.tenantId, tenantId)).limit(1),
  );
  return row?.tools ?? [];
}

/** Replaces the tenant's external tools after checking names, schemas and duplicates. */
export async function putExternalTools(
  deps: { db: Db; builtinNames?: readonly string[] },
  p: Principal,
  tenantId: string,
  input: ExternalToolDef[],
): Promise<ExternalToolDef[]> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const tools = input.map((t) => ({ ...t, readOnly: t.readOnly ?? false }));
  assertValidDefs(tools, deps.builtinNames ?? []);
  const updatedAt = nowIso();
  const { externalTools } = tablesOf(deps.db);
  await deps.db
    .insert(externalTools)
    .values({ tenantId, tools, updatedAt })
    .onConflictDoUpdate({ target: externalTools.tenantId, set: { tools, updatedAt } });
  invalidateTenantConfig(deps.db, tenantId);
  return tools;
}

/** Reads the stored list (tenant admins). */
export async function listExternalTools(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
): Promise<ExternalToolDef[]> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  return getExternalTools(deps.db, tenantId);
}

/** Names the session toolkit gives its own tools (the meta tool, the skill viewer, task tools). */
const RESERVED_NAMES = ["reset_tools", "Skill", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate"];

// A name clash would make one tool shadow another in the session toolkit, so it is a 400.
function assertValidDefs(tools: readonly ExternalToolDef[], builtins: readonly string[]): void {
  const builtinNames = [...builtins, ...RESERVED_NAMES];
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  tools.forEach((def, i) => {
    try {
      externalTool(def);
    } catch (err) {
      details.push({ path: `[${i}]`, message: (err as Error).message });
    }
    const problem = schemaProblem(def.inputSchema);
    if (problem) details.push({ path: `[${i}].inputSchema`, message: problem });
    if (seen.has(def.name))
      details.push({ path: `[${i}].name`, message: `duplicate tool name '${def.name}'` });
    if (builtinNames.includes(def.name) || def.name.startsWith("mcp__")) {
      details.push({ path: `[${i}].name`, message: `'${def.name}' is reserved for a built-in tool` });
    }
    seen.add(def.name);
  });
  if (details.length > 0) throw new ValidationError("invalid external tools", details);
}
