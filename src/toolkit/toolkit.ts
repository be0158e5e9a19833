/**
 * The Toolkit (docs/toolkit.md#the-toolkit-as-a-library): registers tools, MCP tool sets and skills in groups
 * (`basic` always active), adds `reset_tools` and the `Skill` viewer, lists what is available for a set of
 * active groups, and dispatches one call to a final ToolResponse, streaming every chunk through
 * `ctx.onChunk`. It holds no session state: active groups come with each call. Skill sources that need I/O
 * (directory paths, loaders) are awaited by `Toolkit.create`.
 */
import type { ToolInput } from "../permission/types.js";
import type { ToolChunk } from "./content.js";
import { parseToolArguments } from "./json-args.js";
import { META_TOOL_NAME, type MetaToolResponseTemplate, ResetToolsTool } from "./meta-tool.js";
import { appendChunk, createResponse, type ToolResponse, textChunk } from "./response.js";
import type { ToolRunContext } from "./run-context.js";
import { stripTitles, type ToolSchema } from "./schemas.js";
import type { Skill, SkillSource } from "./skills/skill.js";
import type { SkillOrLoader } from "./skills/skill-loader.js";
import { defaultSkillInstructions, type SkillInstructionTemplate } from "./skills/skill-prompt.js";
import { assertSkillRecords, loadSkillSources } from "./skills/skill-sources.js";
import { SKILL_VIEWER_NAME, SkillViewerTool } from "./skills/skill-viewer.js";
import { assertInputSchema, invoke, type ToolBase } from "./tool-base.js";
import {
  BASIC_GROUP,
  groupTools,
  type McpToolSet,
  type ToolGroup,
  type ToolGroupInit,
  validateGroups,
  validateNames,
} from "./tool-group.js";
import { INTERRUPTED_TEXT, mcpErrorText, toolGroupInactiveText, toolNotFoundText } from "./toolkit-errors.js";
import { inputValidationFailedText } from "./validate-input.js";

/** Toolkit construction: top-level tools, skills and MCPs form the always-active `basic` group. */
export interface ToolkitOptions {
  tools?: ToolBase[];
  /** Loaded `Skill` records; directory paths and loaders go through `Toolkit.create`. */
  skills?: Skill[];
  mcps?: McpToolSet[];
  groups?: ToolGroup[];
  /** Where the `Skill` viewer reads SKILL.md for skills with neither `markdown` nor their own `source`. */
  skillSource?: SkillSource;
  /** Replaces the reference's `reset_tools` result template. */
  metaToolResponse?: MetaToolResponseTemplate;
  /** Replaces the reference's skills system-prompt template. */
  skillInstructions?: SkillInstructionTemplate;
}

/** What `Toolkit.create` takes: the options, with skill sources (paths, records, loaders) anywhere. */
export interface ToolkitInit extends Omit<ToolkitOptions, "skills" | "groups"> {
  skills?: SkillOrLoader[];
  groups?: ToolGroupInit[];
}

/** Per-call dispatch options. */
export interface CallToolOptions {
  /** The tool call id; becomes the response id. */
  callId?: string;
  /** Active non-basic groups; defaults to `ctx.activeGroups` (unknown names are ignored). */
  activeGroups?: readonly string[];
}

/** What `resolve` finds for a name: the available tool, or the model-facing error text. */
export type ToolLookup = { ok: true; tool: ToolBase } | { ok: false; message: string };

/** The container of tools; see the module comment. */
export class Toolkit {
  /** `basic` first, then the extra groups in registration order. */
  readonly groups: readonly ToolGroup[];
  private readonly metaTool?: ResetToolsTool;
  private readonly viewer?: SkillViewerTool;
  private readonly skillInstructions: SkillInstructionTemplate;

  /**
   * Loads every skill source of `init` (basic and each group's, concurrently), then constructs
   * the Toolkit: the seed's `Toolkit(skills_or_loaders=...)`, which must await its loaders.
   */
  static async create(init: ToolkitInit = {}): Promise<Toolkit> {
    const groups = (init.groups ?? []).map(async (g) => ({
      ...g,
      skills: await loadSkillSources(g.skills ?? []),
    }));
    const [skills, loaded] = await Promise.all([loadSkillSources(init.skills ?? []), Promise.all(groups)]);
    return new Toolkit({ ...init, skills, groups: loaded });
  }

  constructor(opts: ToolkitOptions = {}) {
    const extra = opts.groups ?? [];
    validateGroups(extra);
    const basic: ToolGroup = {
      name: BASIC_GROUP,
      description: "",
      tools: opts.tools ?? [],
      skills: opts.skills ?? [],
      mcps: opts.mcps ?? [],
    };
    this.groups = [basic, ...extra];
    for (const g of this.groups) assertSkillRecords(g.skills ?? [], g.name);
    const hasSkills = this.groups.some((g) => (g.skills ?? []).length > 0);
    const reserved = [...(extra.length ? [META_TOOL_NAME] : []), ...(hasSkills ? [SKILL_VIEWER_NAME] : [])];
    validateNames(this.groups, reserved);
    if (extra.length) this.metaTool = new ResetToolsTool(extra, opts.metaToolResponse);
    if (hasSkills)
      this.viewer = new SkillViewerTool((active) => this.visibleSkills(active), opts.skillSource);
    this.skillInstructions = opts.skillInstructions ?? defaultSkillInstructions;
  }

  /** True when a non-basic group of that name is registered. */
  hasGroup(name: string): boolean {
    return name !== BASIC_GROUP && this.groups.some((g) => g.name === name);
  }

  /** The groups that count as active: `basic` plus the named ones that exist. */
  activeGroupObjects(activeGroups: readonly string[] = []): ToolGroup[] {
    return this.groups.filter((g) => g.name === BASIC_GROUP || activeGroups.includes(g.name));
  }

  /** The skills of `basic` and the active groups, by name, in group order. */
  visibleSkills(activeGroups: readonly string[] = []): Map<string, Skill> {
    const out = new Map<string, Skill>();
    for (const group of this.activeGroupObjects(activeGroups)) {
      for (const skill of group.skills ?? []) out.set(skill.name, skill);
    }
    return out;
  }

  /** The available tools in reference order: `Skill`, `reset_tools`, then each active group. */
  availableTools(activeGroups: readonly string[] = []): Map<string, ToolBase> {
    const out = new Map<string, ToolBase>();
    if (this.viewer && this.visibleSkills(activeGroups).size > 0) out.set(this.viewer.name, this.viewer);
    if (this.metaTool) out.set(this.metaTool.name, this.metaTool);
    for (const group of this.activeGroupObjects(activeGroups)) {
      for (const tool of groupTools(group)) {
        assertInputSchema(tool);
        out.set(tool.name, tool);
      }
    }
    return out;
  }

  /** The model-facing function schemas, titles stripped. */
  getToolSchemas(activeGroups: readonly string[] = []): ToolSchema[] {
    return [...this.availableTools(activeGroups).values()].map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: stripTitles(tool.inputSchema) },
    }));
  }

  /** The skills fragment of the system prompt, or null when no skill is visible. */
  getSkillInstructions(activeGroups: readonly string[] = []): string | null {
    const skills = [...this.visibleSkills(activeGroups).values()];
    return skills.length ? this.skillInstructions(skills) : null;
  }

  /** Any registered tool, active or not, including `reset_tools` and `Skill`. */
  getTool(name: string): ToolBase | undefined {
    if (name === this.metaTool?.name) return this.metaTool;
    if (name === this.viewer?.name) return this.viewer;
    const group = this.groupOf(name);
    return group && groupTools(group).find((t) => t.name === name);
  }

  /** The group that registers `name` (MCP tools included). */
  groupOf(name: string): ToolGroup | undefined {
    return this.groups.find((g) => groupTools(g).some((t) => t.name === name));
  }

  /** The tool a call may run now, or the text to answer (unknown tool, inactive group). */
  resolve(name: string, activeGroups: readonly string[] = []): ToolLookup {
    const tool = this.availableTools(activeGroups).get(name);
    if (tool) return { ok: true, tool };
    const group = this.groupOf(name);
    return { ok: false, message: group ? toolGroupInactiveText(name, group.name) : toolNotFoundText(name) };
  }

  /**
   * Runs one call to its final response (id = callId). Never throws for tool failures: unknown
   * tools, bad JSON, invalid input and exceptions become error results (docs/toolkit.md#results-and-chunks).
   */
  async callTool(
    name: string,
    rawInput: string | ToolInput,
    ctx: ToolRunContext,
    opts: CallToolOptions = {},
  ): Promise<ToolResponse> {
    const response = createResponse(opts.callId);
    const emit = (c: ToolChunk): void => {
      ctx.onChunk?.(c);
      appendChunk(response, c);
    };
    const fail = (text: string, state: "error" | "interrupted" = "error"): ToolResponse => {
      emit(textChunk(text, { state }));
      return response;
    };

    const active = opts.activeGroups ?? ctx.activeGroups ?? [];
    const found = this.resolve(name, active);
    if (!found.ok) return fail(found.message);
    const tool = found.tool;
    const parsed = parseToolArguments(rawInput);
    if (!parsed.ok) return fail(`ToolJSONDecodeError: ${parsed.reminder}`);
    const checked = tool.validateInput?.(parsed.input) ?? { ok: true, input: parsed.input };
    if (!checked.ok) return fail(inputValidationFailedText(name, checked.message));
    // The state-injected tools (`Skill`, `reset_tools`) read the active set from the context.
    const given = opts.activeGroups;
    const runCtx = given === undefined || given === ctx.activeGroups ? ctx : { ...ctx, activeGroups: given };

    try {
      for await (const c of invoke(tool, checked.input, runCtx)) emit(c);
    } catch (error) {
      if (ctx.signal.aborted) return fail(INTERRUPTED_TEXT, "interrupted");
      const message = error instanceof Error ? error.message : String(error);
      return fail(tool.isMcp ? mcpErrorText(message) : message);
    }
    return response;
  }
}
