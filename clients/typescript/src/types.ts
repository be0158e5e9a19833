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
/** One SSE event of `job.stream()`: `status`, `chunk` (a delta of live output) or `result` (last). */
export type JobEvent = Schemas["JobEvent"];
export type JobStatusEvent = Schemas["JobStatusEvent"];
export type JobChunkEvent = Schemas["JobChunkEvent"];
export type JobResultEvent = Schemas["JobResultEvent"];

export type CreateSessionInput = JsonBody<"createSession">;
export type UpdateSessionInput = JsonBody<"updateSession">;
export type CreateKeyInput = JsonBody<"createKey">;
export type CreatedKey = operations["createKey"]["responses"][201]["content"]["application/json"];
export type TenantSettings = operations["getTenantSettings"]["responses"][200]["content"]["application/json"];
export type UpdateTenantSettingsInput = JsonBody<"updateTenantSettings">;
export type ApprovalInput = JsonBody<"answerApproval">;
