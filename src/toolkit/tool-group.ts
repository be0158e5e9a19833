/**
 * Tool groups and their registration checks (docs/toolkit.md#groups-and-reset_tools): `basic`
 * is reserved, group names are unique, descriptions are required, and any name collision
 * between tools, MCP tools, skills and the built-in meta tools is an error naming both.
 */
import type { Skill } from "./skills/skill.js";
import type { SkillOrLoader } from "./skills/skill-loader.js";
import type { ToolBase } from "./tool-base.js";
import { ToolkitConfigError } from "./toolkit-errors.js";

/** The always-active group formed by the Toolkit's top-level tools, skills and MCPs. */
export const BASIC_GROUP = "basic";

/** The tools of one MCP server, already listed (the service caches listings per server). */
export interface McpToolSet {
  name: string;
  tools: ToolBase[];
}

/** A named set of tools, MCP servers and skills switched on and off as a whole. */
export interface ToolGroup {
  name: string;
  /** Required except for `basic`; it describes the group in `reset_tools`' schema. */
  description: string;
  /** Returned by `reset_tools` when the group gets activated. */
  instructions?: string | null;
  tools: ToolBase[];
  skills?: Skill[];
  mcps?: McpToolSet[];
}

/** A group as `Toolkit.create` takes it: skills may be directory paths and loaders too. */
export interface ToolGroupInit extends Omit<ToolGroup, "skills"> {
  skills?: SkillOrLoader[];
}

/** A group's tools in listing order: its own tools, then its MCP servers' tools. */
export function groupTools(group: ToolGroup): ToolBase[] {
  return [...group.tools, ...(group.mcps ?? []).flatMap((m) => m.tools)];
}

/** Checks the non-basic groups: reserved name, duplicates, missing descriptions. */
export function validateGroups(groups: readonly ToolGroup[]): void {
  const seen = new Set<string>();
  for (const group of groups) {
    if (group.name === BASIC_GROUP) throw new ToolkitConfigError("The tool group name 'basic' is reserved.");
    if (seen.has(group.name)) {
      throw new ToolkitConfigError("Tool groups must not contain duplicate tool groups.");
    }
    if (!group.description) {
      throw new ToolkitConfigError(`The tool group description is required for tool group '${group.name}'.`);
    }
    seen.add(group.name);
  }
}

/** Every tool and skill name is unique across all groups and the built-in tools. */
export function validateNames(groups: readonly ToolGroup[], reserved: readonly string[]): void {
  const tools = new Map<string, string>();
  for (const group of groups) {
    for (const tool of groupTools(group)) {
      const where = tools.get(tool.name);
      if (where !== undefined) {
        throw new ToolkitConfigError(
          `Duplicate tool name '${tool.name}': registered in group '${where}' and again in group '${group.name}'.`,
        );
      }
      if (reserved.includes(tool.name)) {
        throw new ToolkitConfigError(
          `Tool name '${tool.name}' in group '${group.name}' collides with the toolkit's built-in '${tool.name}' tool.`,
        );
      }
      tools.set(tool.name, group.name);
    }
  }
  const skills = new Map<string, string>();
  for (const group of groups) {
    for (const skill of group.skills ?? []) {
      const here = `group '${group.name}'${skill.origin ? ` (${skill.origin})` : ""}`;
      const where = skills.get(skill.name);
      if (where !== undefined) {
        throw new ToolkitConfigError(
          `Duplicate skill name '${skill.name}': registered in ${where} and again in ${here}.`,
        );
      }
      const tool = tools.get(skill.name);
      if (tool !== undefined) {
        throw new ToolkitConfigError(
          `Skill name '${skill.name}' in ${here} collides with the tool '${skill.name}' in group '${tool}'.`,
        );
      }
      skills.set(skill.name, here);
    }
  }
}
