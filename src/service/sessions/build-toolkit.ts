/**
 * A session's Toolkit from its tenant's stored configuration (tool groups, skills, external
 * tools, MCP server names) and the session's own choices (basic tools and skills, active groups).
 * Built per request: it reads a few small rows and constructs no sandbox, so no cache is needed.
 * Stored configuration is validated when written; here, names that have vanished since (a removed
 * external tool, say) are dropped with a warning instead of breaking every call of the tenant.
 */

import { eq } from "drizzle-orm";
import type { Db } from "../../db/open.js";
import {
  type ExternalToolDef,
  mcpServers,
  type SessionRow,
  type ToolGroupDef,
  toolGroups,
} from "../../db/schema.js";
import { ConflictError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { buildSessionToolkit, type SessionToolkit } from "../../toolkit/session-toolkit.js";
import type { Skill } from "../../toolkit/skills/skill.js";
import { loadSkillSources } from "../../toolkit/skills/skill-sources.js";
import type { ToolBase } from "../../toolkit/tool-base.js";
import type { McpToolSet } from "../../toolkit/tool-group.js";
import { ToolkitConfigError } from "../../toolkit/toolkit-errors.js";
import type { ToolRegistry } from "../ports.js";
import { getExternalTools } from "../tool-config/external-tools.js";
import type { SkillFiles } from "../tool-config/skill-files.js";
import { cachedTenantConfig, invalidateTenantConfig } from "../tool-config/tenant-config-cache.js";
import { type SkillStore, TenantSkillLoader } from "../tool-config/tenant-skill-loader.js";

/** Everything a tenant has configured for its sessions' toolkits. */
export interface TenantToolConfig {
  groups: ToolGroupDef[];
  skills: Skill[];
  externalTools: ExternalToolDef[];
  mcpServers: string[];
}

export interface SessionToolkitDeps {
  db: Db;
  tools: ToolRegistry;
  skillFiles: SkillFiles;
  logger: Logger;
}

export function getToolGroups(db: Db, tenantId: string): ToolGroupDef[] {
  return db.select().from(toolGroups).where(eq(toolGroups.tenantId, tenantId)).get()?.groups ?? [];
}

/** The tenant's configuration; its skills come through the same loader path as a library host's. */
export async function loadTenantToolConfig(store: SkillStore, tenantId: string): Promise<TenantToolConfig> {
  const { db } = store;
  const mcps = db.select({ name: mcpServers.name }).from(mcpServers).where(eq(mcpServers.tenantId, tenantId));
  return {
    groups: getToolGroups(db, tenantId),
    skills: await loadSkillSources([new TenantSkillLoader(store, tenantId)]),
    externalTools: await getExternalTools(db, tenantId),
    mcpServers: mcps.all().map((m) => m.name),
  };
}

/**
 * Builds the toolkit strictly from `config` (throws ToolkitConfigError): the check behind
 * `PUT /tool-groups` and skill uploads. MCP servers contribute the `listed` tools, if given.
 */
export function buildTenantToolkit(
  builtins: readonly ToolBase[],
  config: TenantToolConfig,
  session?: Pick<SessionRow, "tools" | "skills" | "activeGroups">,
  listed?: McpToolSet[],
): SessionToolkit {
  const mcps = config.mcpServers.map((name) => listed?.find((m) => m.name === name) ?? { name, tools: [] });
  return buildSessionToolkit({
    builtins: [...builtins],
    basicTools: session?.tools ?? undefined,
    externalTools: config.externalTools,
    groups: config.groups,
    skills: config.skills,
    basicSkills: session?.skills ?? undefined,
    mcps,
    activeGroups: session?.activeGroups ?? [],
  });
}

/** Per-build options of `sessionToolkit`. */
export interface SessionToolkitOptions {
  /** Decorates the built-in tools (the worker's crash guard). */
  wrap?: (tool: ToolBase) => ToolBase;
  /** The tenant's MCP servers, already listed; without them each server contributes no tools. */
  mcps?: McpToolSet[];
}

/**
 * The session's toolkit now. A configuration that still does not build (e.g. a skill and an
 * external tool of one name) is a 409 naming the clash, for the tenant's admin to fix.
 */
export async function sessionToolkit(
  deps: SessionToolkitDeps,
  session: SessionRow,
  opts: SessionToolkitOptions = {},
): Promise<SessionToolkit> {
  const builtinNames = deps.tools.list().map((t) => t.name);
  // The cache holds the loading promise; a failed load must not be served for the whole TTL.
  const stored = await cachedTenantConfig(deps.db, session.tenantId, () =>
    loadTenantToolConfig(deps, session.tenantId),
  ).catch((err: unknown) => {
    invalidateTenantConfig(deps.db, session.tenantId);
    throw err;
  });
  const { config, dropped } = dropStaleMembers(builtinNames, stored);
  if (dropped.length > 0)
    deps.logger.warn({ tenantId: session.tenantId, dropped }, "tool groups name members that are gone");
  const known = new Set(config.skills.map((s) => s.name));
  const row = { ...session, skills: session.skills?.filter((n) => known.has(n)) ?? null };
  const builtins = opts.wrap ? deps.tools.list().map(opts.wrap) : deps.tools.list();
  try {
    return buildTenantToolkit(builtins, config, row, opts.mcps);
  } catch (err) {
    if (!(err instanceof ToolkitConfigError)) throw err;
    deps.logger.warn({ tenantId: session.tenantId, err: err.message }, "tool configuration does not build");
    throw new ConflictError(`the tenant's tool configuration is inconsistent: ${err.message}`);
  }
}

/**
 * The configuration without members that vanished after it was stored (a removed external tool,
 * say) and without external tools shadowing a built-in; `dropped` names what was left out.
 */
export function dropStaleMembers(
  builtinNames: readonly string[],
  config: TenantToolConfig,
): { config: TenantToolConfig; dropped: string[] } {
  const builtins = new Set(builtinNames);
  const externalTools = config.externalTools.filter((t) => !builtins.has(t.name));
  const known = {
    tools: new Set([...builtins, ...externalTools.map((t) => t.name)]),
    skills: new Set(config.skills.map((s) => s.name)),
    mcpServers: new Set(config.mcpServers),
  };
  const dropped: string[] = [];
  const keep = (names: readonly string[] | undefined, member: keyof typeof known) => {
    const kept = (names ?? []).filter((n) => known[member].has(n));
    dropped.push(...(names ?? []).filter((n) => !known[member].has(n)));
    return kept;
  };
  const groups = config.groups.map((g) => ({
    ...g,
    tools: keep(g.tools, "tools"),
    skills: keep(g.skills, "skills"),
    mcpServers: keep(g.mcpServers, "mcpServers"),
  }));
  return { config: { ...config, externalTools, groups }, dropped };
}
