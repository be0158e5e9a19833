/** @toolshed/client: a typed client for the Toolshed API (see README.md). */
export { ToolshedError } from "./errors.js";
export type { components, operations, paths } from "./generated/openapi.js";
export type { ToolshedOptions } from "./http.js";
export {
  type CallOptions,
  Job,
  Jobs,
  Session,
  Sessions,
  Tenants,
  Toolshed,
} from "./toolshed.js";
export type * from "./types.js";
