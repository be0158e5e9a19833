// Generated from the OpenAPI document by `npm run client:build` (src/cli/client-contract.ts): do not edit.
/** The API's error codes and retry rules, as its OpenAPI document declares them (shared with the Python client). */
export const ERROR_CODES: readonly string[] = ["CONFLICT","EGRESS_REFUSED","FORBIDDEN","INTERNAL","NOT_FOUND","PAYLOAD_TOO_LARGE","POLICY_DENIED","RATE_LIMITED","SANDBOX_UNAVAILABLE","TRANSFER_PENDING","UNAUTHENTICATED","UNAVAILABLE","UNSUPPORTED_MEDIA_TYPE","VALIDATION"];
/** Answers that promise nothing was done (each documents `Retry-After`): sent again on every method. */
export const RETRY_AFTER_STATUSES: readonly number[] = [429,503];
/** A job was made and will run once: never sent again. */
export const PENDING = {"status":504,"code":"TRANSFER_PENDING"} as const;
/** HTTP's idempotent methods (RFC 9110). */
export const IDEMPOTENT_METHODS: readonly string[] = ["GET","HEAD","PUT","DELETE"];
/** Per operationId: whether a failed connection is retried. */
export const NETWORK_RETRY: Readonly<Record<string, "always" | "with_idempotency_key" | "never">> = {
  "addMcpServer": "never",
  "answerApproval": "never",
  "cancelJob": "never",
  "checkPolicy": "always",
  "createKey": "never",
  "createSession": "never",
  "createTenant": "never",
  "decideCall": "always",
  "deleteMcpServer": "always",
  "deleteSession": "always",
  "deleteSkill": "always",
  "deleteWebhook": "always",
  "downloadFile": "always",
  "dryRunRules": "always",
  "exportWorkspace": "always",
  "getHealth": "always",
  "getJob": "always",
  "getMcpServer": "always",
  "getMetrics": "always",
  "getReadiness": "always",
  "getRules": "always",
  "getSession": "always",
  "getTenantSettings": "always",
  "getWebhook": "always",
  "importWorkspace": "never",
  "listApprovals": "always",
  "listAudit": "always",
  "listExternalTools": "always",
  "listJobs": "always",
  "listKeys": "always",
  "listMcpServers": "always",
  "listMcpServerTools": "always",
  "listSessions": "always",
  "listSessionTools": "always",
  "listSkills": "always",
  "listTenants": "always",
  "listToolGroups": "always",
  "listWebhookDeliveries": "always",
  "postExternalResult": "never",
  "putWebhook": "always",
  "revokeKey": "always",
  "sessionMcp": "never",
  "setExternalTools": "always",
  "setRules": "always",
  "setToolGroups": "always",
  "streamApprovals": "always",
  "streamJobEvents": "always",
  "submitCall": "with_idempotency_key",
  "updateSession": "never",
  "updateTenantSettings": "always",
  "uploadFile": "never",
  "uploadSkill": "never"
};
