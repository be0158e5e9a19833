/**
 * A tenant's tool groups (`PUT/GET /v1/tenants/{tid}/tool-groups`): replaced as a whole, each
 * member checked against the tenant's tools, skills and MCP servers (400 naming `[1].tools[0]`),
 * then the whole configuration is built once with `buildSessionToolkit` as the final check.
 */

import { type Db, tablesOf } from "../../db/db.js";
import type { ToolGroupDef } from "../../db/rows.js";
import { type ErrorDetail, ValidationError } from "../../errors.js";
import { BASIC_GROUP } from "../../toolkit/tool-group.js";
import { ToolkitConfigError } from "../../toolkit/toolkit-errors.js";
import { nowIso } from "../clock.js";
import type { ToolRegistry } from "../ports.js";
import { buildTenantToolkit, getToolGroups, loadTenantToolConfig } from "../sessions/build-toolkit.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { loadTenant } from "../tenancy/tenants.js";
import type { SkillFiles } from "./skill-files.js";
import { invalidateTenantConfig } from "./tenant-config-cache.js";

type Deps = { db: Db; tools: ToolRegistry; skillFiles: SkillFiles };
type Member = "tools" | "skills" | "mcpServers";
const MEMBER_KIND: Record<Member, string> = { tools: "tool", skills: "skill", mcpServers: "MCP server" };

export async function listToolGroups(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
): Promise<ToolGroupDef[]> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  return await getToolGroups(deps.db, tenantId);
}

export async function putToolGroups(
  deps: Deps,
  p: Principal,
  tenantId: string,
  input: ToolGroupDef[],
): Promise<ToolGroupDef[]> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const groups = input.map(normalize);
  const config = { ...(await loadTenantToolConfig(deps, tenantId)), groups };
  const known: Record<Member, Set<string>> = {
    tools: new Set([...deps.tools.list().map((t) => t.name), ...config.externalTools.map((t) => t.name)]),
    skills: new Set(config.skills.map((s) => s.name)),
    mcpServers: new Set(config.mcpServers),
  };
  const details = memberProblems(groups, known);
  if (details.length > 0) throw new ValidationError("invalid tool groups", details);
  try {
    // Reading the listing also checks every exposed schema, as a session would.
    void buildTenantToolkit(deps.tools.list(), config).listing;
  } catch (err) {
    if (!(err instanceof ToolkitConfigError)) throw err;
    throw new ValidationError("invalid tool groups", [
      { path: groupPath(groups, err.message), message: err.message },
    ]);
  }
  const updatedAt = nowIso();
  const { toolGroups } = tablesOf(deps.db);
  await deps.db
    .insert(toolGroups)
    .values({ tenantId, groups, updatedAt })
    .onConflictDoUpdate({ target: toolGroups.tenantId, set: { groups, updatedAt } });
  invalidateTenantConfig(deps.db, tenantId);
  return groups;
}

function normalize(g: ToolGroupDef): ToolGroupDef {
  return {
    name: g.name,
    description: g.description,
    ...(g.instructions !== undefined ? { instructions: g.instructions } : {}),
    tools: [...g.tools],
    ...(g.skills ? { skills: [...g.skills] } : {}),
    ...(g.mcpServers ? { mcpServers: [...g.mcpServers] } : {}),
  };
}

/** Reserved and duplicate names, unknown members, and members claimed by two groups. */
function memberProblems(groups: readonly ToolGroupDef[], known: Record<Member, Set<string>>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const names = new Set<string>();
  const owner = new Map<string, string>();
  groups.forEach((g, i) => {
    if (g.name === BASIC_GROUP)
      details.push({ path: `[${i}].name`, message: "the group name 'basic' is reserved" });
    else if (names.has(g.name))
      details.push({ path: `[${i}].name`, message: `duplicate group name '${g.name}'` });
    if (!g.description.trim())
      details.push({ path: `[${i}].description`, message: "a description is required" });
    names.add(g.name);
    for (const member of ["tools", "skills", "mcpServers"] as const) {
      (g[member] ?? []).forEach((n, j) => {
        const path = `[${i}].${member}[${j}]`;
        const key = `${member}:${n}`;
        const kind = MEMBER_KIND[member];
        if (!known[member].has(n)) details.push({ path, message: `no ${kind} named '${n}' in this tenant` });
        else if (owner.has(key))
          details.push({ path, message: `the ${kind} '${n}' is already in group '${owner.get(key)}'` });
        else owner.set(key, g.name);
      });
    }
  });
  return details;
}

/** The group a toolkit error names last (the second place of a clash), as `[i]`; else the body. */
function groupPath(groups: readonly ToolGroupDef[], message: string): string {
  const named = [...message.matchAll(/group '([^']*)'/g)].map((m) => m[1]);
  const index = groups.findIndex((g) => g.name === named.at(-1));
  return index >= 0 ? `[${index}]` : "";
}
