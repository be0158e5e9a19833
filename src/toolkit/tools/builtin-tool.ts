/**
 * The shared shape of the built-in tools: a zod input schema (the model-facing JSON schema is
 * generated from it) and a permission face delegated to `src/permission`.
 */
import type { z } from "zod";
import type { PermissionContext, PermissionSubject, ToolInput } from "../../permission/types.js";
import type { FileEditPolicyOptions } from "../../permission/write-policy.js";
import { SandboxFileError } from "../../sandbox/sandbox.js";
import { PolicyTool } from "../policy-tool.js";
import { textChunk } from "../response.js";
import type { ToolRunContext } from "../run-context.js";
import { zodToInputSchema } from "../schemas.js";
import type { InputValidation, JsonSchemaObject, ToolCallOutput, ToolOptions } from "../tool-base.js";
import { inputValidationFailedText, validateWithZod } from "../validate-input.js";

/** Options every built-in accepts: middlewares and an optional replacement permission face. */
export interface BuiltinToolOptions extends ToolOptions {
  /** Defaults to the tool's policy from `src/permission`. */
  permission?: PermissionSubject;
}

/** Options of Write and Edit: the dangerous-list extensions also drive the symlink re-check. */
export interface FileToolOptions extends BuiltinToolOptions, FileEditPolicyOptions {}

/** A built-in tool: parses its input with zod, then runs `run`. */
export abstract class BuiltinTool<S extends z.ZodObject> extends PolicyTool {
  readonly inputSchema: JsonSchemaObject;
  readonly matchAllowRules?: PermissionSubject["matchAllowRules"];

  constructor(
    protected readonly schema: S,
    protected readonly permission: PermissionSubject,
    opts: ToolOptions = {},
  ) {
    super(opts);
    this.inputSchema = zodToInputSchema(schema);
    if (permission.matchAllowRules) this.matchAllowRules = permission.matchAllowRules.bind(permission);
  }

  override matchRule(ruleContent: string, input: ToolInput, ctx: PermissionContext): boolean {
    return this.permission.matchRule(ruleContent, input, ctx);
  }

  override validateInput(input: ToolInput): InputValidation {
    return validateWithZod(this.schema, input);
  }

  /** Parses again (a direct `invoke` skips the toolkit) so that defaults are applied. */
  override async call(input: ToolInput, ctx: ToolRunContext): Promise<ToolCallOutput> {
    const parsed = this.schema.safeParse(input);
    if (!parsed.success) {
      const checked = this.validateInput(input);
      const message = checked.ok ? parsed.error.message : checked.message;
      return textChunk(inputValidationFailedText(this.name, message), { state: "error" });
    }
    return this.run(parsed.data, ctx);
  }

  /** The tool's logic on parsed input. */
  protected abstract run(input: z.output<S>, ctx: ToolRunContext): Promise<ToolCallOutput>;
}

/** An error-state text chunk. */
export function errorChunk(text: string): ReturnType<typeof textChunk> {
  return textChunk(text, { state: "error" });
}

/** Write's and Edit's failed write; a full disk says so, and that the file was left as it was. */
export function writeErrorChunk(p: string, error: unknown): ReturnType<typeof textChunk> {
  if (error instanceof SandboxFileError && error.code === "ENOSPC") {
    return errorChunk(
      `Error writing file: no space left for ${p}: the session's workspace, or the host's disk, is full. The file was left as it was; free some space and try again.`,
    );
  }
  return errorChunk(`Error writing file: ${error instanceof Error ? error.message : String(error)}`);
}
