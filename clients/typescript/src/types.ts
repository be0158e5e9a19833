/** Names for the generated OpenAPI types (src/generated/openapi.ts, from `npm run client:build`). */
import type { components, operations } from "./generated/openapi.js";

type Schemas = components["schemas"];
type JsonBody<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;

export type Tenant = Schemas["Tenant"];
export type SessionData = Schemas["Session"];
export type JobData = Schemas["Job"];
export type JobStatus = Schemas["JobStatus"];
export type Result = Schemas["Result"];
export type Decision = Schemas["Decision"];
export type RuleSet = Schemas["RuleSet"];
export type ErrorBody = Schemas["Error"];
export type ApprovalItem = Schemas["ApprovalItem"];
export type KeyData = Schemas["Key"];
export type ExternalTool = Schemas["ExternalTool"];
export type ToolGroup = Schemas["ToolGroup"];
export type Skill = Schemas["Skill"];
export type SkillUpload = Schemas["SkillUpload"];
export type McpServer = Schemas["McpServer"];
export type McpServerInput = Schemas["McpServerInput"];
export type RulesDryRun = Schemas["RulesDryRun"];
/** One SSE event of `job.stream()`: `status`, `chunk` (a delta of live output) or `result` (last). */
export type JobEvent = Schemas["JobEvent"];
export type JobStatusEvent = Schemas["JobStatusEvent"];
export type JobChunkEvent = Schemas["JobChunkEvent"];
export type JobResultEvent = Schemas["JobResultEvent"];

export type CreateSessionInput = JsonBody<"createSession">;
export type UpdateSessionInput = JsonBody<"updateSession">;
export type CreateKeyInput = JsonBody<"createKey">;
export type CreatedKey = operations["createKey"]["responses"][201]["content"]["application/json"];
export type UpdateTenantSettingsInput = JsonBody<"updateTenantSettings">;
export type ApprovalInput = JsonBody<"answerApproval">;

/** The JSON answer of an operation (200 unless named). */
type Answer<Op extends keyof operations> = operations[Op]["responses"] extends {
  200: { content: { "application/json": infer A } };
}
  ? A
  : never;
/** The query parameters of an operation, without the cursor (pages follow it themselves). */
type ListFilter<Op extends keyof operations> = Omit<
  NonNullable<operations[Op]["parameters"]["query"]>,
  "cursor"
>;

export type SessionTools = Answer<"listSessionTools">;
export type ToolDefinition = SessionTools["tools"][number];
export type DecideInput = JsonBody<"decideCall">;
export type ExternalResultInput = JsonBody<"postExternalResult">;
export type UploadedFile = Answer<"uploadFile">;
export type ImportedWorkspace = Answer<"importWorkspace">;
export type SessionFilter = ListFilter<"listSessions">;
export type JobFilter = ListFilter<"listJobs">;
export type ApprovalFilter = ListFilter<"listApprovals">;
export type AuditPage = Answer<"listAudit">;
export type TenantSettings = Answer<"getTenantSettings">;
export type AuditFilter = NonNullable<operations["listAudit"]["parameters"]["query"]>;
