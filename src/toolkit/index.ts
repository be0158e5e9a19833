/**
 * The public surface of the toolkit: the tool contract, responses, the Toolkit, FunctionTool,
 * middleware, and the built-in tools.
 */
export { type BuiltinToolsOptions, createBuiltinTools } from "./builtins.js";
export * from "./content.js";
export { unifiedDiff } from "./diff.js";
export * from "./function-tool.js";
export type { NextHandler, ToolMiddleware } from "./middleware.js";
export type { ReadCacheEntry, ReadCacheStore } from "./read-cache.js";
export * from "./response.js";
export type { ToolRunContext } from "./run-context.js";
export { stripTitles, type ToolSchema, zodToInputSchema } from "./schemas.js";
export * from "./tool-base.js";
export * from "./toolkit.js";
export * from "./toolkit-errors.js";
export { BashTool } from "./tools/bash.js";
export { EditTool } from "./tools/edit.js";
export { GlobTool } from "./tools/glob.js";
export { GrepTool } from "./tools/grep.js";
export { ReadTool } from "./tools/read.js";
export { WriteTool } from "./tools/write.js";
