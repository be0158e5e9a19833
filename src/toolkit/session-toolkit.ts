/**
 * Builds one session's Toolkit from a tenant's configuration (built-ins, external tools, tool
 * groups, skills, MCP servers, all by name) and the model-facing listing that
 * `GET /v1/sessions/{sid}/tools` returns. A tool, skill or MCP server named by a group belongs
 * to that group; everything else the session selected is `basic`.
 */

import type { ExternalToolDef, ToolGroupDef } from "../contracts/tool-config.js";
import { ExternalTool } from "./external-tool.js";
import type { Skill, SkillSource } from "./skills/skill.js";
import type { ToolBase } from "./tool-base.js";
import type { McpToolSet, ToolGroup } from "./tool-group.js";
import { Toolkit } from "./toolkit.js";
import { ToolkitConfigError } from "./toolkit-errors.js";

/** Everything a session's toolkit is made of. */
export interface SessionToolkitInput {
  /** The built-in tools on offer, e.g. `[...createBuiltinTools(), ...createTaskTools()]`. */
  builtins: ToolBase[];
  /** The session's basic built-ins by name; default: all not claimed by a group. */
  basicTools?: readonly string[];
  externalTools?: ExternalToolDef[];
  groups?: ToolGroupDef[];
  /** The tenant's skills. */
  skills?: Skill[];
  /** The session's basic skills by name; default: all not claimed by a group. */
  basicSkills?: readonly string[];
  /** The tenant's MCP servers, already listed; unclaimed ones are basic. */
  mcps?: McpToolSet[];
  /** The session's active groups (persisted); names of groups that no longer exist are dropped. */
  activeGroups?: readonly string[];
  skillSource?: SkillSource;
}

/** What the model should see now. */
export interface SessionToolListing {
  tools: { name: string; description: string; inputSchema: Record<string, unknown> }[];
  /** The skills fragment, or "" when no skill is visible. */
  systemPrompt: string;
}

/** The built toolkit, the effective active groups and the listing for them. */
export interface SessionToolkit {
  toolkit: Toolkit;
  activeGroups: string[];
  /** What the model should see; computed (and schemas checked) on first read. */
  readonly listing: SessionToolListing;
}

/** Builds the session's toolkit; throws ToolkitConfigError on unknown names or collisions. */
export function buildSessionToolkit(input: SessionToolkitInput): SessionToolkit {
  const tools = byName(
    [...input.builtins, ...(input.externalTools ?? []).map((d) => new ExternalTool(d))],
    "tool",
  );
  const skills = byName(input.skills ?? [], "skill");
  const mcps = byName(input.mcps ?? [], "MCP server");
  const configs = input.groups ?? [];
  const claimed = (key: "tools" | "skills" | "mcpServers") => new Set(configs.flatMap((g) => g[key] ?? []));

  const groups: ToolGroup[] = configs.map((g) => ({
    name: g.name,
    description: g.description,
    instructions: g.instructions ?? null,
    tools: g.tools.map((n) => pick(tools, n, "tool", g.name)),
    skills: (g.skills ?? []).map((n) => pick(skills, n, "skill", g.name)),
    mcps: (g.mcpServers ?? []).map((n) => pick(mcps, n, "MCP server", g.name)),
  }));

  const builtinNames = input.builtins.map((t) => t.name);
  const externalNames = (input.externalTools ?? []).map((d) => d.name);
  const basicToolNames = [...(input.basicTools ?? builtinNames), ...externalNames];
  const claimedTools = claimed("tools");
  const claimedSkills = claimed("skills");
  const claimedMcps = claimed("mcpServers");
  const toolkit = new Toolkit({
    tools: basicToolNames.filter((n) => !claimedTools.has(n)).map((n) => pick(tools, n, "tool", "basic")),
    skills: (input.basicSkills ?? [...skills.keys()])
      .filter((n) => !claimedSkills.has(n))
      .map((n) => pick(skills, n, "skill", "basic")),
    mcps: [...mcps.values()].filter((m) => !claimedMcps.has(m.name)),
    groups,
    skillSource: input.skillSource,
  });
  const activeGroups = (input.activeGroups ?? []).filter((n) => toolkit.hasGroup(n));
  // The listing (schema copies, title stripping) is computed on first read: calls never need it.
  let listing: SessionToolListing | undefined;
  return {
    toolkit,
    activeGroups,
    get listing() {
      listing ??= listSessionTools(toolkit, activeGroups);
      return listing;
    },
  };
}

/** The listing for an active set, in the reference order (docs/toolkit.md#groups-and-reset_tools). */
export function listSessionTools(toolkit: Toolkit, activeGroups: readonly string[]): SessionToolListing {
  return {
    tools: toolkit.getToolSchemas(activeGroups).map((s) => ({
      name: s.function.name,
      description: s.function.description,
      inputSchema: s.function.parameters,
    })),
    systemPrompt: toolkit.getSkillInstructions(activeGroups) ?? "",
  };
}

function byName<T extends { name: string }>(items: readonly T[], kind: string): Map<string, T> {
  const out = new Map<string, T>();
  for (const item of items) {
    if (out.has(item.name)) throw new ToolkitConfigError(`Duplicate ${kind} name '${item.name}'.`);
    out.set(item.name, item);
  }
  return out;
}

function pick<T>(items: Map<string, T>, name: string, kind: string, where: string): T {
  const item = items.get(name);
  if (item === undefined) throw new ToolkitConfigError(`Unknown ${kind} '${name}' in group '${where}'.`);
  return item;
}
