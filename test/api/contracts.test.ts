/**
 * The contracts in src/contracts are what the API documents and what it serves: the OpenAPI
 * components are generated from them, and answers parse with them (strictly: no field the
 * contract does not declare).
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import type { z } from "zod";
import { JobView } from "../../src/contracts/job.js";
import { SessionView } from "../../src/contracts/session.js";
import { TenantSettingsView } from "../../src/contracts/tenant.js";
import { ExternalToolDef, McpServerView, ToolGroupDef } from "../../src/contracts/tool-config.js";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider(), {}, { mcp: true });
});
afterEach(() => t.close());

const strict = (schema: z.ZodObject) => schema.strict();

it("the OpenAPI document's components are the contracts", async () => {
  const doc = (await t.call("GET", "/openapi.json")).body;
  const schemas = doc.components.schemas;
  for (const id of ["Job", "JobStatus", "Decision", "Result", "JobAttempt", "Session", "RuleSet"]) {
    expect(schemas[id], id).toBeDefined();
  }
  const config = [
    "ExternalTool",
    "ToolGroup",
    "Skill",
    "Tenant",
    "Key",
    "TenantQuotas",
    "TenantSettings",
    "TenantSettingsPatch",
  ];
  for (const id of [...config, "McpServerInput", "McpServer"]) expect(schemas[id], id).toBeDefined();
  expect(Object.keys(schemas.Job.properties).sort()).toEqual(Object.keys(JobView.shape).sort());
  expect(Object.keys(schemas.Session.properties).sort()).toEqual(Object.keys(SessionView.shape).sort());
  expect(schemas.Job.properties.decision).toEqual({ $ref: "#/components/schemas/Decision" });
});

it("served sessions, jobs, tenant configuration and MCP servers parse with their contracts", async () => {
  const a = await seedTenant(t.call);
  const session = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: { mode: "default" } });
  expect(session.status, JSON.stringify(session.body)).toBe(201);
  strict(SessionView).parse(session.body);

  const call = await t.call("POST", `/v1/sessions/${session.body.id}/calls`, {
    key: a.agentKey,
    body: { tool: "Read", input: { file_path: "/workspace/a" } },
  });
  expect(call.status, JSON.stringify(call.body)).toBe(202);
  const job = await t.call("GET", `/v1/jobs/${call.body.job.id}`, { key: a.agentKey });
  strict(JobView).parse(job.body.job);

  const tools = [
    {
      name: "lookup",
      description: "looks up",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
    },
  ];
  const put = await t.call("PUT", `/v1/tenants/${a.tenantId}/tools`, { key: a.adminKey, body: tools });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  for (const tool of put.body) strict(ExternalToolDef).parse(tool);
  const groups = [{ name: "lookups", description: "lookups", tools: ["lookup"] }];
  const putGroups = await t.call("PUT", `/v1/tenants/${a.tenantId}/tool-groups`, {
    key: a.adminKey,
    body: groups,
  });
  expect(putGroups.status, JSON.stringify(putGroups.body)).toBe(200);
  for (const group of putGroups.body) strict(ToolGroupDef).parse(group);
  const settings = await t.call("GET", `/v1/tenants/${a.tenantId}/settings`, { key: a.adminKey });
  strict(TenantSettingsView).parse(settings.body);
  const server = await t.call("POST", `/v1/tenants/${a.tenantId}/mcp-servers`, {
    key: a.adminKey,
    body: { name: "mem", transport: "stdio", command: "mcp-memory", env: { TOKEN: "s3cret" } },
  });
  expect(server.status, JSON.stringify(server.body)).toBe(201);
  expect(strict(McpServerView).parse(server.body)).toMatchObject({ hasEnv: true });
});

it("a body that breaks a contract is a 400 naming the field", async () => {
  const a = await seedTenant(t.call);
  const res = await t.call("PUT", `/v1/tenants/${a.tenantId}/tool-groups`, {
    key: a.adminKey,
    body: [{ name: "has space", description: "x", tools: [] }],
  });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe("VALIDATION");
  expect(res.body.error.details).toEqual([{ path: "[0].name", message: "must match ^[A-Za-z0-9_-]{1,64}$" }]);
});
