/**
 * The Toolkit (reference §4): registers tools in groups (`basic` always active), lists the
 * schemas of the available tools, and dispatches one call to a final ToolResponse, streaming
 * every chunk through `ctx.onChunk`. `reset_tools` and the `Skill` viewer come later.
 */
import type { ToolInput } from "../permission/types.js";
import type { ToolChunk } from "./content.js";
import { parseToolArguments } from "./json-args.js";
import { appendChunk, createResponse, type ToolResponse, textChunk } from "./response.js";
import type { ToolRunContext } from "./run-context.js";
import { stripTitles, type ToolSchema } from "./schemas.js";
import { assertInputSchema, invoke, type ToolBase } from "./tool-base.js";
import {
  INTERRUPTED_TEXT,
  mcpErrorText,
  ToolkitConfigError,
  toolGroupInactiveText,
  toolNotFoundText,
} from "./toolkit-errors.js";
import { inputValidationFailedText } from "./validate-input.js";

/** A named set of tools switched on and off as a whole; `basic` is reserved. */
export interface ToolGroup {
  name: string;
  description: string;
  /** Appended to the `reset_tools` result when the group gets activated. */
  instructions?: string;
  tools: ToolBase[];
}

/** Toolkit construction: top-level tools form the always-active `basic` group. */
export interface ToolkitOptions {
  tools?: ToolBase[];
  groups?: ToolGroup[];
}

/** Per-call dispatch options. */
export interface CallToolOptions {
  /** The tool call id; becomes the response id. */
  callId?: string;
  /** Active non-basic groups (names that match no group are ignored). */
  activeGroups?: readonly string[];
}

/** The meta tool the toolkit registers once a non-basic group exists. */
const META_TOOL_NAME = "reset_tools";

/** The container of tools; see the module comment. */
export class Toolkit {
  readonly groups: readonly ToolGroup[];

  constructor(opts: ToolkitOptions = {}) {
    const extra = opts.groups ?? [];
    this.groups = [{ name: "basic", description: "", tools: opts.tools ?? [] }, ...extra];
    validateGroups(extra);
    validateToolNames(this.groups);
  }

  /** The available tools in reference order (§4.2) for the given active groups. */
  availableTools(activeGroups: readonly string[] = []): Map<string, ToolBase> {
    const out = new Map<string, ToolBase>();
    for (const group of this.groups) {
      if (group.name !== "basic" && !activeGroups.includes(group.name)) continue;
      for (const tool of group.tools) {
        assertInputSchema(tool);
        out.set(tool.name, tool);
      }
    }
    return out;
  }

  /** The model-facing function schemas, titles stripped (§4.3). */
  getToolSchemas(activeGroups: readonly string[] = []): ToolSchema[] {
    return [...this.availableTools(activeGroups).values()].map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: stripTitles(tool.inputSchema) },
    }));
  }

  /** Any registered tool, active or not. */
  getTool(name: string): ToolBase | undefined {
    return this.groupOf(name)?.tools.find((t) => t.name === name);
  }

  /** The group that registers `name`. */
  groupOf(name: string): ToolGroup | undefined {
    return this.groups.find((g) => g.tools.some((t) => t.name === name));
  }

  /**
   * Runs one call to its final response (id = callId). Never throws for tool failures: unknown
   * tools, bad JSON, invalid input and exceptions become error results (§4.4–4.5).
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

    const tool = this.availableTools(opts.activeGroups).get(name);
    if (!tool) {
      const group = this.groupOf(name);
      return fail(group ? toolGroupInactiveText(name, group.name) : toolNotFoundText(name));
    }
    const parsed = parseToolArguments(rawInput);
    if (!parsed.ok) return fail(`ToolJSONDecodeError: ${parsed.reminder}`);
    const checked = tool.validateInput?.(parsed.input) ?? { ok: true, input: parsed.input };
    if (!checked.ok) return fail(inputValidationFailedText(name, checked.message));

    try {
      for await (const c of invoke(tool, checked.input, ctx)) emit(c);
    } catch (error) {
      if (ctx.signal.aborted) return fail(INTERRUPTED_TEXT, "interrupted");
      const message = error instanceof Error ? error.message : String(error);
      return fail(tool.isMcp ? mcpErrorText(message) : message);
    }
    return response;
  }
}

function validateGroups(groups: readonly ToolGroup[]): void {
  const seen = new Set<string>();
  for (const group of groups) {
    if (group.name === "basic") throw new ToolkitConfigError("The tool group name 'basic' is reserved.");
    if (seen.has(group.name)) {
      throw new ToolkitConfigError("Tool groups must not contain duplicate tool groups.");
    }
    if (!group.description) {
      throw new ToolkitConfigError(`The tool group description is required for tool group '${group.name}'.`);
    }
    seen.add(group.name);
  }
}

/** §16.8: a second tool with the same name is an error naming both places. */
function validateToolNames(groups: readonly ToolGroup[]): void {
  const owner = new Map<string, string>();
  const reserved = groups.length > 1 ? [META_TOOL_NAME] : [];
  for (const group of groups) {
    for (const tool of group.tools) {
      const where = owner.get(tool.name);
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
      owner.set(tool.name, group.name);
    }
  }
}
