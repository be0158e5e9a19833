/** Resolves a call's tool and checks its input against the tool's JSON schema (400 with paths). */
import type { SessionRow } from "../../db/rows.js";
import { ValidationError } from "../../errors.js";
import type { ToolInput } from "../../permission/types.js";
import type { ToolBase } from "../../toolkit/tool-base.js";
import type { ToolRegistry } from "../ports.js";
import { validateJsonSchema } from "../tool-config/json-schema.js";

/** The session's tool of that name; an unknown or not-offered tool is a 400 on `tool`. */
export function resolveTool(
  tools: ToolRegistry,
  name: string,
  session?: Pick<SessionRow, "tools">,
): ToolBase {
  const tool = tools.get(name);
  if (!tool || (session?.tools && !session.tools.includes(name))) {
    throw new ValidationError(`unknown tool ${name}`, [
      { path: "tool", message: `no tool named ${JSON.stringify(name)} in this session` },
    ]);
  }
  return tool;
}

/** The validated (and, where the tool defines it, defaulted) input. */
export function validateToolInput(tool: ToolBase, input: unknown): ToolInput {
  const issues = validateJsonSchema(tool.inputSchema, input, "input");
  if (issues.length > 0) throw new ValidationError(`invalid input for ${tool.name}`, issues);
  const own = tool.validateInput?.(input as ToolInput);
  if (own && !own.ok) throw new ValidationError(own.message, [{ path: "input", message: own.message }]);
  return own?.ok ? own.input : (input as ToolInput);
}
