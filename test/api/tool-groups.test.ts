/**
 * Tool groups through the API (no worker): PUT/GET with field-naming 400s, roles, cross-tenant
 * 404; sessions naming groups at creation; the listing; a call of an inactive group's tool.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ADMIN_KEY, createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let a: Awaited<ReturnType<typeof seedTenant>>;
beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  a = await seedTenant(t.call);
});
afterEach(() => t.close());

const EDITING = {
  name: "editing",
  description: "Change files.",
  instructions: "Read before you edit.",
  tools: ["Write", "Edit"],
};
const PLANNING = { name: "planning", description: "Track work as tasks.", tools: ["TaskCreate", "TaskList"] };
const put = (body: unknown, key = a.adminKey, tid = a.tenantId) =>
  t.call("PUT", `/v1/tenants/${tid}/tool-groups`, { key, body });
const names = (res: { body: { tools: { name: string }[] } }) => res.body.tools.map((x) => x.name);

describe("PUT/GET /v1/tenants/{tid}/tool-groups", () => {
  it("stores and returns the groups", async () => {
    const res = await put([EDITING, PLANNING]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual([EDITING, PLANNING]);
    const got = await t.call("GET", `/v1/tenants/${a.tenantId}/tool-groups`, { key: a.adminKey });
    expect(got.body).toEqual([EDITING, PLANNING]);
    const admin = await t.call("GET", `/v1/tenants/${a.tenantId}/tool-groups`, { key: ADMIN_KEY });
    expect(admin.status).toBe(200);
  });

  it.each([
    ["an unknown tool", [{ ...EDITING, tools: ["Write", "Nope"] }], "[0].tools[1]"],
    ["the reserved name basic", [PLANNING, { ...EDITING, name: "basic" }], "[1].name"],
    ["a duplicate group name", [EDITING, { ...PLANNING, name: "editing" }], "[1].name"],
    ["a tool in two groups", [EDITING, { ...PLANNING, tools: ["Edit"] }], "[1].tools[0]"],
    ["an unknown skill", [{ ...EDITING, skills: ["pdf"] }], "[0].skills[0]"],
    ["an unknown MCP server", [{ ...EDITING, mcpServers: ["pg"] }], "[0].mcpServers[0]"],
    ["a missing description", [{ ...EDITING, description: "" }], "[0].description"],
    ["a bad name", [{ ...EDITING, name: "a b" }], "[0].name"],
  ])("400 names the field: %s", async (_, body, path) => {
    const res = await put(body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION");
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect((await t.call("GET", `/v1/tenants/${a.tenantId}/tool-groups`, { key: a.adminKey })).body).toEqual(
      [],
    );
  });

  it("agents may not manage groups (403); another tenant's answer 404", async () => {
    expect((await put([EDITING], a.agentKey)).status).toBe(403);
    const b = await seedTenant(t.call, "b");
    const res = await put([EDITING], b.adminKey);
    expect(res.status, JSON.stringify(res.body)).toBe(404);
    const got = await t.call("GET", `/v1/tenants/${a.tenantId}/tool-groups`, { key: b.adminKey });
    expect(got.status).toBe(404);
  });
});

describe("sessions with tool groups", () => {
  beforeEach(async () => {
    expect((await put([EDITING, PLANNING])).status).toBe(200);
  });

  it("lists basic plus reset_tools, then the groups named at creation", async () => {
    const s = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
    const list = await t.call("GET", `/v1/sessions/${s.body.id}/tools`, { key: a.agentKey });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(names(list)).toEqual(["reset_tools", "Bash", "Read", "Glob", "Grep", "TaskGet", "TaskUpdate"]);
    expect(list.body.tools[0].inputSchema).toEqual({
      properties: {
        editing: { default: false, description: "Change files.", type: "boolean" },
        planning: { default: false, description: "Track work as tasks.", type: "boolean" },
      },
      type: "object",
    });
    expect(list.body.systemPrompt).toBe("");

    const started = await t.call("POST", "/v1/sessions", {
      key: a.agentKey,
      body: { toolGroups: ["planning", "editing"], tools: ["Read"] },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const list2 = await t.call("GET", `/v1/sessions/${started.body.id}/tools`, { key: a.agentKey });
    expect(names(list2)).toEqual(["reset_tools", "Read", "Write", "Edit", "TaskCreate", "TaskList"]);
  });

  it("unknown groups and skills at creation are a 400 naming the entry", async () => {
    const res = await t.call("POST", "/v1/sessions", {
      key: a.agentKey,
      body: { toolGroups: ["editing", "nope"] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: "toolGroups[1]", message: 'no tool group named "nope"' },
    ]);
    const skills = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: { skills: ["pdf"] } });
    expect(skills.body.error.details[0].path).toBe("skills[0]");
  });

  it("a call of an inactive group's tool finishes failed with the inactive-group text", async () => {
    const s = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
    const res = await t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
      key: a.agentKey,
      body: { tool: "Write", input: {} },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.job.status).toBe("failed");
    expect(res.body.job.result).toEqual({
      content: [
        {
          type: "text",
          text: "ToolGroupInactiveError: The tool 'Write' in group 'editing' is currently inactive. You should first activate the group by calling the 'reset_tools' tool.",
        },
      ],
      state: "error",
    });
    expect(t.bus.enqueued).not.toContain(res.body.job.id);
    const unknown = await t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
      key: a.agentKey,
      body: { tool: "Nope", input: {} },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0].path).toBe("tool");
  });

  it("reset_tools is queued like any call (it runs in the worker)", async () => {
    const s = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
    const res = await t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
      key: a.agentKey,
      body: { tool: "reset_tools", input: { editing: true } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.job.status).toBe("queued");
    expect(res.body.job.decision.behavior).toBe("allow");
  });
});
