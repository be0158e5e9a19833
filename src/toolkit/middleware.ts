/**
 * Per-tool onion middleware (docs/toolkit.md#example-a-functiontool-with-a-logging-middleware): the first
 * registered is the outermost layer, and `next` always yields a stream of chunks whether the tool streams or
 * not. Declared with `ToolBase` (tool-base.ts), which composes them; this module is their public name.
 */
export { composeMiddlewares, type NextHandler, type ToolMiddleware } from "./tool-base.js";
