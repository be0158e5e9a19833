/** @toolshed/client: a typed client for the Toolshed API (see README.md). */
export { ToolshedError } from "./errors.js";
export type { components, operations, paths } from "./generated/openapi.js";
export type { ToolshedOptions } from "./http.js";
export { type Approval, Approvals, Job, Jobs } from "./jobs.js";
export { type CallOptions, Session, SessionFiles, Sessions } from "./sessions.js";
export { Tenants } from "./tenants.js";
export { Toolshed } from "./toolshed.js";
export type * from "./types.js";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  WEBHOOK_SIGNATURE_INVALID,
  WEBHOOK_TIMESTAMP_OUT_OF_RANGE,
  type WebhookDelivery,
} from "./webhooks.js";
