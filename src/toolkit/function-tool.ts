/**
 * FunctionTool (docs/toolkit.md#example-a-functiontool-with-a-logging-middleware): wraps a plain function
 * with a zod input schema. Results are normalised to chunks; the permission default is a non-immune ASK.
 */
import type { z } from "zod";
import type { PermissionContext, ToolDecision, ToolInput } from "../permission/types.js";
import type { ToolChunk } from "./content.js";
import { textChunk } from "./response.js";
import type { ToolRunContext } from "./run-context.js";
import { zodToInputSchema } from "./schemas.js";
import {
  type InputValidation,
  type JsonSchemaObject,
  Tool,
  type ToolCallOutput,
  type ToolOptions,
} from "./tool-base.js";
import { inputValidationFailedText, validateWithZod } from "./validate-input.js";

/** What a wrapped function may return: chunks, strings, any JSON-able value, or streams of them. */
export type FunctionResult = unknown;

/** Options of `new FunctionTool(...)`. */
export interface FunctionToolOptions<S extends z.ZodObject> extends ToolOptions {
  name: string;
  description: string;
  schema: S;
  fn: (input: z.output<S>, ctx: ToolRunContext) => FunctionResult | Promise<FunctionResult>;
  isConcurrencySafe?: boolean;
  isReadOnly?: boolean;
  isStateInjected?: boolean;
}

/** The reference's message for the default ASK. */
export const FUNCTION_TOOL_ASK_MESSAGE = "Custom function tools must be explicitly allowed by the user.";

/** A tool made from a function and a zod schema. */
export class FunctionTool<S extends z.ZodObject = z.ZodObject> extends Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  readonly isConcurrencySafe: boolean;
  readonly isReadOnly: boolean;
  override readonly isStateInjected: boolean;
  private readonly schema: S;
  private readonly fn: FunctionToolOptions<S>["fn"];

  constructor(opts: FunctionToolOptions<S>) {
    super(opts);
    this.name = opts.name;
    this.description = opts.description;
    this.schema = opts.schema;
    this.fn = opts.fn;
    this.inputSchema = zodToInputSchema(opts.schema);
    this.isConcurrencySafe = opts.isConcurrencySafe ?? true;
    this.isReadOnly = opts.isReadOnly ?? false;
    this.isStateInjected = opts.isStateInjected ?? false;
  }

  checkPermissions(_input: ToolInput, _ctx: PermissionContext): ToolDecision {
    return { behavior: "ask", message: FUNCTION_TOOL_ASK_MESSAGE, reason: null, bypassImmune: false };
  }

  override validateInput(input: ToolInput): InputValidation {
    return validateWithZod(this.schema, input);
  }

  /** Parses again (a direct `invoke` skips the toolkit) so that defaults are applied. */
  override async call(input: ToolInput, ctx: ToolRunContext): Promise<ToolCallOutput> {
    const checked = this.validateInput(input);
    if (!checked.ok)
      return textChunk(inputValidationFailedText(this.name, checked.message), { state: "error" });
    const result = await this.fn(checked.input as z.output<S>, ctx);
    if (isAsyncIterable(result)) return mapStream(result);
    if (isSyncIterable(result)) return mapStream(toAsync(result));
    return toChunk(result);
  }
}

async function* mapStream(items: AsyncIterable<unknown>): AsyncIterable<ToolChunk> {
  for await (const item of items) yield toChunk(item);
}

async function* toAsync(items: Iterable<unknown>): AsyncIterable<unknown> {
  yield* items;
}

function isAsyncIterable(v: unknown): v is AsyncIterable<unknown> {
  return typeof v === "object" && v !== null && Symbol.asyncIterator in v;
}

/** Generators only: arrays and strings are values, not streams. */
function isSyncIterable(v: unknown): v is Iterable<unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Symbol.iterator in v;
}

function isChunk(v: unknown): v is ToolChunk {
  return typeof v === "object" && v !== null && "content" in v && "state" in v && "isLast" in v;
}

/** A chunk passes through, a string becomes text, anything else its JSON (or String). */
function toChunk(value: unknown): ToolChunk {
  if (isChunk(value)) return value;
  if (typeof value === "string") return textChunk(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return textChunk(text);
}
