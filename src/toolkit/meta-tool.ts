/**
 * The meta tool `reset_tools` (docs/toolkit.md#groups-and-reset_tools): one boolean per non-basic group, the
 * input is the final state (it overwrites the active set), and the result carries the activated groups'
 * instructions. Toolshed validates the whole input before anything changes.
 */
import { genericPolicy } from "../permission/generic.js";
import type { PermissionContext, PermissionSubject, ToolDecision, ToolInput } from "../permission/types.js";
import { textChunk } from "./response.js";
import type { ToolRunContext } from "./run-context.js";
import { type JsonSchemaObject, Tool, type ToolCallOutput, type ToolOptions } from "./tool-base.js";
import type { ToolGroup } from "./tool-group.js";

/** The meta tool's model-facing name. */
export const META_TOOL_NAME = "reset_tools";

/** Renders the result for the groups a call activates (registration order); replaceable. */
export type MetaToolResponseTemplate = (groups: readonly ToolGroup[]) => string;

const DESCRIPTION =
  "This tool allows you to reset your equipped tools based on your current task requirements. These tools are organized into different groups, and you can activate/deactivate them by specifying the boolean values for each group in the input.\n\n" +
  "**Important: The input booleans are the final state of their corresponding tool groups, not incremental changes.** Any group not explicitly set to True will be deactivated, regardless of its previous state.\n\n" +
  "**Best practice**: Actively manage your tool groups——activate only what you need for the current task, and promptly deactivate groups as soon as they are no longer needed to conserve context space.\n\n" +
  "This tool will return the usage instructions for the activated tool groups, which you **MUST pay attention to and follow**. You can also reuse this tool to re-check the instructions.";

const INSTRUCTIONS_HEAD =
  "\n<tool-instructions>\nThe tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.\n";

/** The reference's response template. */
export const defaultMetaToolResponse: MetaToolResponseTemplate = (groups) => {
  let text = groups.length
    ? `The currently activated tool group(s): ${groups.map((g) => g.name).join(", ")}.`
    : "All tool groups are currently deactivated.";
  if (groups.some((g) => g.instructions !== undefined && g.instructions !== null)) {
    const items = groups
      .filter((g) => g.instructions)
      .map((g) => `<group name="${g.name}">${g.instructions}</group>`);
    text += `${INSTRUCTIONS_HEAD}${items.join("")}\n</tool-instructions>`;
  }
  return text;
};

/** `reset_tools`, bound to the Toolkit's non-basic groups. */
export class ResetToolsTool extends Tool {
  readonly name = META_TOOL_NAME;
  readonly description = DESCRIPTION;
  readonly inputSchema: JsonSchemaObject;
  readonly isConcurrencySafe = true;
  readonly isReadOnly = false;
  override readonly isStateInjected = true;
  private readonly permission: PermissionSubject = genericPolicy(META_TOOL_NAME, { kind: "always_allow" });

  constructor(
    private readonly groups: readonly ToolGroup[],
    private readonly template: MetaToolResponseTemplate = defaultMetaToolResponse,
    opts: ToolOptions = {},
  ) {
    super(opts);
    const properties = Object.fromEntries(
      groups.map((g) => [g.name, { default: false, description: g.description, type: "boolean" }]),
    );
    this.inputSchema = { properties, type: "object" };
  }

  checkPermissions(input: ToolInput, ctx: PermissionContext): ToolDecision {
    return this.permission.checkPermissions(input, ctx);
  }

  override async call(input: ToolInput, ctx: ToolRunContext): Promise<ToolCallOutput> {
    const problems = this.problems(input);
    if (problems.length) {
      return textChunk([...problems, "No tool groups were changed."].join("\n"), { state: "error" });
    }
    if (!ctx.setActiveGroups) throw new Error("reset_tools requires ToolRunContext.setActiveGroups.");
    const activated = this.groups.filter((g) => input[g.name] === true);
    await ctx.setActiveGroups(activated.map((g) => g.name));
    return textChunk(this.template(activated));
  }

  /** Every unknown group and non-boolean value, in input order. */
  private problems(input: ToolInput): string[] {
    const names = this.groups.map((g) => g.name);
    return Object.entries(input).flatMap(([key, value]) => {
      if (!names.includes(key)) {
        return [`Invalid arguments: '${key}' is not a tool group. The tool groups are: ${names.join(", ")}.`];
      }
      if (typeof value !== "boolean") {
        return [
          `Invalid arguments: the argument ${key} should be a bool value, but got <class '${pythonType(value)}'>.`,
        ];
      }
      return [];
    });
  }
}

/** The reference prints Python class names; agents written for it may match on them. */
function pythonType(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (Array.isArray(value)) return "list";
  return typeof value === "object" ? "dict" : typeof value;
}
