/**
 * The shared shape of the four task tools (docs/tools.md#flags): always allowed, concurrency
 * safe, state-injected (they need `ctx.taskStore`), with the reference's hand-written JSON
 * schemas and a zod twin for validation.
 */
import type { z } from "zod";
import { genericPolicy } from "../../permission/generic.js";
import type {
  PermissionContext,
  PermissionRule,
  PermissionSubject,
  ToolDecision,
  ToolInput,
} from "../../permission/types.js";
import { textChunk } from "../response.js";
import type { ToolRunContext } from "../run-context.js";
import {
  type InputValidation,
  type JsonSchemaObject,
  Tool,
  type ToolCallOutput,
  type ToolOptions,
} from "../tool-base.js";
import { inputValidationFailedText, validateWithZod } from "../validate-input.js";
import type { TaskStore } from "./task.js";

/** A task tool: validates with zod, then runs against the session's task store. */
export abstract class TaskTool<S extends z.ZodObject> extends Tool {
  readonly isConcurrencySafe = true;
  override readonly isStateInjected = true;
  private readonly permission: PermissionSubject;

  constructor(
    readonly name: string,
    readonly description: string,
    readonly inputSchema: JsonSchemaObject,
    private readonly schema: S,
    readonly isReadOnly: boolean,
    opts: ToolOptions = {},
  ) {
    super(opts);
    this.permission = genericPolicy(name, { kind: "always_allow", readOnly: isReadOnly });
  }

  checkPermissions(input: ToolInput, ctx: PermissionContext): ToolDecision {
    return this.permission.checkPermissions(input, ctx);
  }

  override generateSuggestions(input: ToolInput, ctx: PermissionContext): PermissionRule[] {
    return this.permission.generateSuggestions(input, ctx);
  }

  override validateInput(input: ToolInput): InputValidation {
    return validateWithZod(this.schema, input);
  }

  override async call(input: ToolInput, ctx: ToolRunContext): Promise<ToolCallOutput> {
    const checked = this.validateInput(input);
    if (!checked.ok) {
      return textChunk(inputValidationFailedText(this.name, checked.message), { state: "error" });
    }
    // The reference raises a developer error when the state is missing; ours becomes an error result.
    if (!ctx.taskStore) throw new Error(`${this.name} requires a task store (ToolRunContext.taskStore).`);
    return this.run(checked.input as z.output<S>, ctx.taskStore, ctx.sessionId);
  }

  /** The tool's logic on validated input. */
  protected abstract run(input: z.output<S>, store: TaskStore, sessionId: string): Promise<ToolCallOutput>;
}

/** `{anyOf: [T, {type: null}], default: null, description}` as pydantic writes an optional field. */
export function nullable(schema: Record<string, unknown>, description: string): Record<string, unknown> {
  return { anyOf: [schema, { type: "null" }], default: null, description };
}
