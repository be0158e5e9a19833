/**
 * A session's Toolkit from its tenant's stored configuration (tool groups, skills, external
 * tools, MCP server names) and the session's own choices (basic tools and skills, active groups).
 * Built from the tenant's cached configuration, and shared by the calls that would build the same.
 * Stored configuration is validated when written; here, names that have vanished since (a removed
 * external tool, say) are dropped with a warning instead of breaking every call of the tenant.
 */

import { eq } from "drizzle-orm";
import { type Db, first, tablesOf } from "../../db/db.js";
import type { ExternalToolDef, SessionRow, ToolGroupDef } from "../../db/rows.js";
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

export async function getToolGroups(db: Db, tenantId: string): Promise<ToolGroupDef[]> {
  const { toolGroups } = tablesOf(db);
  const row = await first(
    db
      .select({ groups: toolGroups.groups })
      .from(toolGroups)
      .where(eq(toolGroups.tenantId, tenantId))
      .limit(1),
  );
  return row?.groups ?? [];
}

/** The tenant's configuration; its skills come through the same loader path as a library host's. */
export async function loadTenantToolConfig(store: SkillStore, tenantId: string): Promise<TenantToolConfig> {
  const { db } = store;
  const { mcpServers } = tablesOf(db);
  const [groups, skills, externalTools, mcps] = await Promise.all([
    getToolGroups(db, tenantId),
    loadSkillSources([new TenantSkillLoader(store, tenantId)]),
    getExternalTools(db, tenantId),
    db.select({ name: mcpServers.name }).from(mcpServers).where(eq(mcpServers.tenantId, tenantId)),
  ]);
  return { groups, skills, externalTools, mcpServers: mcps.map((m) => m.name) };
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
  const taken = new Set([...builtins.map((t) => t.name), ...config.externalTools.map((d) => d.name)]);
  const mcps = config.mcpServers.map((name) =>
    distinctTools(listed?.find((m) => m.name === name) ?? { name, tools: [] }, taken),
  );
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

/**
 * A server's tools without those whose name is already taken (two of its names made alike by
 * `mcpToolName`, another server's, a tool's): what a server answers must not stop the toolkit
 * from building, which would fail every call of the tenant's sessions. The first one stays.
 */
function distinctTools(set: McpToolSet, taken: Set<string>): McpToolSet {
  const tools = set.tools.filter((t) => !taken.has(t.name) && taken.add(t.name));
  return tools.length === set.tools.length ? set : { ...set, tools };
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
  // The cache holds the loading promise; a failed load must not be served for the whole TTL.
  const stored = await cachedTenantConfig(deps.db, session.tenantId, () =>
    loadTenantToolConfig(deps, session.tenantId),
  ).catch((err: unknown) => {
    invalidateTenantConfig(deps.db, session.tenantId);
    throw err;
  });
  // A tenant with MCP servers has listings that change under the same configuration: built anew.
  const cacheable = stored.mcpServers.length === 0;
  const entries = cacheable ? builtFor(deps.tools, stored, opts.wrap) : undefined;
  const key = JSON.stringify([session.tools, session.skills, session.activeGroups]);
  const hit = entries?.get(key);
  if (hit) return hit;
  const builtinNames = deps.tools.list().map((t) => t.name);
  const { config, dropped } = dropStaleMembers(builtinNames, stored);
  if (dropped.length > 0)
    deps.logger.warn({ tenantId: session.tenantId, dropped }, "tool groups name members that are gone");
  const known = new Set(config.skills.map((s) => s.name));
  const row = { ...session, skills: session.skills?.filter((n) => known.has(n)) ?? null };
  const builtins = opts.wrap ? deps.tools.list().map(opts.wrap) : deps.tools.list();
  let built: SessionToolkit;
  try {
    built = buildTenantToolkit(builtins, config, row, opts.mcps);
  } catch (err) {
    if (!(err instanceof ToolkitConfigError)) throw err;
    deps.logger.warn({ tenantId: session.tenantId, err: err.message }, "tool configuration does not build");
    throw new ConflictError(`the tenant's tool configuration is inconsistent: ${err.message}`);
  }
  if (entries) {
    if (entries.size >= MAX_PER_SCOPE) entries.delete(entries.keys().next().value as string);
    // Shared by calls: its active groups must not be changed in place by one of them.
    Object.freeze(built.activeGroups);
    entries.set(key, built);
  }
  return built;
}

/**
 * Built toolkits, shared by the calls that would build the same one: a warm call built its
 * session's toolkit twice (submit and run) from the same rows. A built toolkit holds no per-call
 * state (the run's state is in its context). Keyed by what the build reads: the registry of
 * built-ins, the tenant's configuration as loaded (cached per process; a change or a reload is a
 * new object, so entries of an old one are never served), the decoration (the worker's crash
 * guard is one function for the process), then the session's own choices.
 */
const builtToolkits = new WeakMap<object, WeakMap<object, Map<unknown, Map<string, SessionToolkit>>>>();
const NO_WRAP = {};
const MAX_PER_SCOPE = 256;

/** The built toolkits of one registry, configuration and decoration, by the session's choices. */
function builtFor(
  tools: ToolRegistry,
  config: TenantToolConfig,
  wrap: SessionToolkitOptions["wrap"],
): Map<string, SessionToolkit> {
  const byConfig = builtToolkits.get(tools) ?? new WeakMap();
  builtToolkits.set(tools, byConfig);
  const byWrap = byConfig.get(config) ?? new Map();
  byConfig.set(config, byWrap);
  const entries = byWrap.get(wrap ?? NO_WRAP) ?? new Map<string, SessionToolkit>();
  byWrap.set(wrap ?? NO_WRAP, entries);
  return entries;
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
