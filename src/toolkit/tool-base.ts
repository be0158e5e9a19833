/**
 * The ToolBase contract (docs/toolkit.md#the-toolkit-as-a-library): attributes, the permission face, `call`,
 * and `invoke`, the framework entry point that runs the middleware chain and then `call`.
 */
import type {
  PermissionContext,
  PermissionRule,
  PermissionSubject,
  ToolDecision,
  ToolInput,
} from "../permission/types.js";
import type { ToolChunk } from "./content.js";
import type { ToolRunContext } from "./run-context.js";

/** A JSON-schema object with `type: "object"` and `properties` (checked by `assertInputSchema`). */
export type JsonSchemaObject = Record<string, unknown> & {
  type: "object";
  properties: Record<string, unknown>;
};

/** What `call` may return: one chunk or a stream of them. */
export type ToolCallOutput = ToolChunk | AsyncIterable<ToolChunk>;

/** A sandbox `readFile` by its arguments. */
export interface SandboxRead {
  path: string;
  maxBytes: number;
}

/** The outcome of a tool's own input validation. */
export type InputValidation = { ok: true; input: ToolInput } | { ok: false; message: string };

/** Everything the toolkit, the permission engine and the worker need from a tool. */
export interface ToolBase extends PermissionSubject {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  readonly isConcurrencySafe: boolean;
  readonly isReadOnly: boolean;
  /**
   * Whether a call may run before it is stored and be thrown away unseen: it changes nothing
   * anywhere (no write, no start, no message; its sandbox operations only read regular files).
   * Absent: no.
   */
  readonly runsAhead?: boolean;
  /**
   * The sandbox read a call's run starts with, when its input alone tells it (a run ahead sends
   * it before the run is set up, fast-read.ts): the run's first `readFile` must be exactly this
   * one. Absent or undefined: not known before the run.
   */
  firstRead?(input: ToolInput): SandboxRead | undefined;
  /** Execution is delegated outside Toolshed; `call` must not be used. */
  readonly isExternalTool: boolean;
  /** Receives the session state (for us: the ToolRunContext's read cache and cwd). */
  readonly isStateInjected: boolean;
  readonly isMcp: boolean;
  readonly mcpName: string | null;
  readonly middlewares: readonly ToolMiddleware[];
  /** Parses and defaults the raw input; absent means the input is used as is. */
  validateInput?(input: ToolInput): InputValidation;
  call(input: ToolInput, ctx: ToolRunContext): Promise<ToolCallOutput> | ToolCallOutput;
}

/** Common options of every tool class. */
export interface ToolOptions {
  middlewares?: readonly ToolMiddleware[];
}

/** Defaults for the optional parts of the contract; subclasses set the attributes. */
export abstract class Tool implements ToolBase {
  abstract readonly name: string;
  abstract readonly description: string;
  abstract readonly inputSchema: JsonSchemaObject;
  abstract readonly isConcurrencySafe: boolean;
  abstract readonly isReadOnly: boolean;
  readonly isExternalTool: boolean = false;
  readonly isStateInjected: boolean = false;
  readonly isMcp: boolean = false;
  readonly mcpName: string | null = null;
  readonly middlewares: readonly ToolMiddleware[];

  constructor(opts: ToolOptions = {}) {
    this.middlewares = opts.middlewares ?? [];
  }

  abstract checkPermissions(input: ToolInput, ctx: PermissionContext): ToolDecision;

  /** No validation by default; tools declared with zod override this. */
  validateInput(input: ToolInput): InputValidation {
    return { ok: true, input };
  }

  checkReadOnly(_input: ToolInput, _ctx: PermissionContext): boolean {
    return this.isReadOnly;
  }

  /** Null/"" content is handled by the engine; the base matches no specific content. */
  matchRule(_ruleContent: string, _input: ToolInput, _ctx: PermissionContext): boolean {
    return false;
  }

  /** One tool-level allow rule (docs/permission.md#other-tools). */
  generateSuggestions(_input: ToolInput, _ctx: PermissionContext): PermissionRule[] {
    return [{ toolName: this.name, ruleContent: null, behavior: "allow", source: "suggested" }];
  }

  call(_input: ToolInput, _ctx: ToolRunContext): Promise<ToolCallOutput> | ToolCallOutput {
    throw new Error(
      this.isExternalTool
        ? `${this.name} is an external tool and should not be called directly.`
        : `${this.name} does not implement call.`,
    );
  }
}

/** Throws "Invalid input_schema" unless the schema is an object schema with properties. */
export function assertInputSchema(tool: Pick<ToolBase, "name" | "inputSchema">): void {
  const s = tool.inputSchema as Record<string, unknown> | undefined;
  const props = s?.properties;
  if (s?.type !== "object" || typeof props !== "object" || props === null || Array.isArray(props)) {
    throw new Error(`Invalid input_schema for tool '${tool.name}': expected type "object" with properties.`);
  }
}

/** Turns one chunk or a stream into a stream. */
export async function* toStream(output: ToolCallOutput): AsyncIterable<ToolChunk> {
  if (Symbol.asyncIterator in output) yield* output;
  else yield output;
}

/** The framework entry point: the tool's middlewares (first = outermost), then `call`. */
export function invoke(tool: ToolBase, input: ToolInput, ctx: ToolRunContext): AsyncIterable<ToolChunk> {
  const inner = async function* (finalInput: ToolInput): AsyncIterable<ToolChunk> {
    yield* toStream(await tool.call(finalInput, ctx));
  };
  return composeMiddlewares(tool, tool.middlewares, inner, ctx)(input);
}

/** Runs the next layer inward (eventually the tool's own `call`). */
export type NextHandler = (input: ToolInput) => AsyncIterable<ToolChunk>;

/**
 * A hook around every call of one tool instance. It may rewrite the input, transform, drop or
 * add chunks, or short-circuit by yielding without calling `next`.
 */
export interface ToolMiddleware {
  onToolCall(
    tool: ToolBase,
    input: ToolInput,
    next: NextHandler,
    ctx: ToolRunContext,
  ): AsyncIterable<ToolChunk>;
}

/** Builds the onion: `middlewares[0]` wraps everything, `inner` is the tool's own call. */
export function composeMiddlewares(
  tool: ToolBase,
  middlewares: readonly ToolMiddleware[],
  inner: NextHandler,
  ctx: ToolRunContext,
): NextHandler {
  return middlewares.reduceRight<NextHandler>(
    (next, middleware) => (input) => middleware.onToolCall(tool, input, next, ctx),
    inner,
  );
}
