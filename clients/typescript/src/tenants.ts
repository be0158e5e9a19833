/** Tenants and what their admins configure: keys, rules, settings, tools, groups, skills, MCP servers, audit. */
import { enc, type Http, queryString, retryPolicyFor } from "./http.js";
import type {
  AuditFilter,
  AuditPage,
  CreatedKey,
  CreateKeyInput,
  ExternalTool,
  KeyData,
  McpServer,
  McpServerInput,
  RuleSet,
  RulesDryRun,
  Skill,
  SkillUpload,
  Tenant,
  TenantSettings,
  ToolGroup,
  UpdateTenantSettingsInput,
} from "./types.js";

export class Tenants {
  constructor(private readonly http: Http) {}

  create(input: { name: string }): Promise<Tenant> {
    return this.http.request("POST", "/v1/tenants", input);
  }
  /** A new key; its secret (`key`) is shown only in this answer. */
  createKey(tenantId: string, input: CreateKeyInput): Promise<CreatedKey> {
    return this.http.request("POST", `/v1/tenants/${enc(tenantId)}/keys`, input);
  }
  /** The tenant's keys, revoked ones included; never a secret. */
  async listKeys(tenantId: string): Promise<KeyData[]> {
    return (await this.http.request<{ keys: KeyData[] }>("GET", `/v1/tenants/${enc(tenantId)}/keys`)).keys;
  }
  revokeKey(keyId: string): Promise<void> {
    return this.http.request("DELETE", `/v1/keys/${enc(keyId)}`);
  }
  setRules(tenantId: string, rules: RuleSet): Promise<RuleSet> {
    return this.http.request("PUT", `/v1/tenants/${enc(tenantId)}/rules`, rules);
  }
  getRules(tenantId: string): Promise<RuleSet> {
    return this.http.request("GET", `/v1/tenants/${enc(tenantId)}/rules`);
  }
  /** The tenant's recent calls (`limit`, default 100) decided again with `rules`: those that would change. Nothing is saved. */
  dryRunRules(tenantId: string, rules: RuleSet, opts: { limit?: number } = {}): Promise<RulesDryRun> {
    const path = `/v1/tenants/${enc(tenantId)}/rules/dry-run${queryString(opts)}`;
    return this.http.request("POST", path, rules, retryPolicyFor("dryRunRules"));
  }
  getSettings(tenantId: string): Promise<TenantSettings> {
    return this.http.request("GET", `/v1/tenants/${enc(tenantId)}/settings`);
  }
  updateSettings(tenantId: string, input: UpdateTenantSettingsInput): Promise<TenantSettings> {
    return this.http.request("PUT", `/v1/tenants/${enc(tenantId)}/settings`, input);
  }
  /** The tenant's external tools (run by your code: their calls wait `awaiting_external`), replaced as a whole. */
  setTools(tenantId: string, tools: ExternalTool[]): Promise<ExternalTool[]> {
    return this.http.request("PUT", `/v1/tenants/${enc(tenantId)}/tools`, tools);
  }
  getTools(tenantId: string): Promise<ExternalTool[]> {
    return this.http.request("GET", `/v1/tenants/${enc(tenantId)}/tools`);
  }
  setToolGroups(tenantId: string, groups: ToolGroup[]): Promise<ToolGroup[]> {
    return this.http.request("PUT", `/v1/tenants/${enc(tenantId)}/tool-groups`, groups);
  }
  getToolGroups(tenantId: string): Promise<ToolGroup[]> {
    return this.http.request("GET", `/v1/tenants/${enc(tenantId)}/tool-groups`);
  }
  /** A skill from its files (`SKILL.md` and the rest, by relative path). */
  uploadSkill(tenantId: string, upload: SkillUpload): Promise<Skill> {
    return this.http.request("POST", `/v1/tenants/${enc(tenantId)}/skills`, upload);
  }
  async listSkills(tenantId: string): Promise<Skill[]> {
    return (await this.http.request<{ skills: Skill[] }>("GET", `/v1/tenants/${enc(tenantId)}/skills`)).skills;
  }
  deleteSkill(tenantId: string, name: string): Promise<void> {
    return this.http.request("DELETE", `/v1/tenants/${enc(tenantId)}/skills/${enc(name)}`);
  }
  addMcpServer(tenantId: string, server: McpServerInput): Promise<McpServer> {
    return this.http.request("POST", `/v1/tenants/${enc(tenantId)}/mcp-servers`, server);
  }
  async listMcpServers(tenantId: string): Promise<McpServer[]> {
    const path = `/v1/tenants/${enc(tenantId)}/mcp-servers`;
    return (await this.http.request<{ servers: McpServer[] }>("GET", path)).servers;
  }
  deleteMcpServer(tenantId: string, name: string): Promise<void> {
    return this.http.request("DELETE", `/v1/tenants/${enc(tenantId)}/mcp-servers/${enc(name)}`);
  }
  /** Audit entries, newest first: decisions, approvals, external results, attempts. */
  audit(tenantId: string, filter: AuditFilter = {}): Promise<AuditPage> {
    return this.http.request("GET", `/v1/tenants/${enc(tenantId)}/audit${queryString(filter)}`);
  }
}
