/**
 * The row shapes the service reads, as types only: values (tables) come from the handle
 * (`tablesOf(db)` in db.ts), so that each dialect's own tables are used.
 */
export type {
  ApiKeyRow,
  ExternalToolDef,
  JobAttempt,
  JobRow,
  JobStatus,
  KeyRole,
  RuleStrings,
  SessionRow,
  StoredDecision,
  StoredResult,
  StoredSandboxSettings,
  TenantQuotas,
  TenantRow,
  ToolGroupDef,
  WebhookDeliveryRow,
  WebhookDeliveryStatus,
  WebhookRow,
} from "./schema.js";
