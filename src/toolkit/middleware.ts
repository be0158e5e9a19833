/**
 * Per-tool onion middleware (reference §3): the first registered is the outermost layer, and
 * `next` always yields a stream of chunks whether the tool streams or not.
 */
import type { ToolInput } from "../permission/types.js";
import type { ToolChunk } from "./content.js";
import type { ToolRunContext } from "./run-context.js";
import type { ToolBase } from "./tool-base.js";

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
