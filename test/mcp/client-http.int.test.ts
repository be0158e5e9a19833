/**
 * The client side over Streamable HTTP, end to end: the third-party server-everything (npm) on
 * loopback, registered by a tenant admin, listed as `mcp__<server>__<tool>` with the filters and
 * read-only hints, and called through the real API, policy, queue and worker under tenant rules.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, seedTenant } from "../support/harness.js";
import { jobText, type McpHarness, startEverythingHttp, startMcpHarness } from "./support.js";

let t: McpHarness;
let everything: { url: string; stop(): Promise<void> };
let tenant: Awaited<ReturnType<typeof seedTenant>>;
let other: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;

beforeAll(async () => {
  everything = await startEverythingHttp();
  t = await startMcpHarness();
  tenant = await seedTenant(t.call, "acme");
  other = await seedTenant(t.call, "other");
});

afterAll(async () => {
  await t?.stop();
  await everything?.stop();
});

const servers = (tid: string) => `/v1/tenants/${tid}/mcp-servers`;

async function run(tool: string, input: Record<string, unknown>) {
  const res = await t.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: tenant.agentKey,
    body: { tool, input },
  });
  expect([200, 202], JSON.stringify(res.body)).toContain(res.status);
  return res.body.job;
}

describe("tenant MCP servers over HTTP", () => {
  it("registers a stateful and a stateless server; headers are stored, never returned", async () => {
    const a = await t.call("POST", servers(tenant.tenantId), {
      key: tenant.adminKey,
      body: {
        name: "everything",
        transport: "http",
        url: everything.url,
        stateful: true,
        headers: { "x-api-key": "k-123" },
        disableTools: ["get-env"],
      },
    });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(a.body).toMatchObject({ name: "everything", transport: "http", stateful: true, hasHeaders: true });
    expect(JSON.stringify(a.body)).not.toContain("k-123");

    const b = await t.call("POST", servers(tenant.tenantId), {
      key: tenant.adminKey,
      body: {
        name: "everything2",
        transport: "http",
        url: everything.url,
        enableTools: ["echo", "toggle-simulated-logging"],
      },
    });
    expect(b.status, JSON.stringify(b.body)).toBe(201);
    expect(b.body).toMatchObject({ stateful: false, hasHeaders: false });

    const list = await t.call("GET", servers(tenant.tenantId), { key: tenant.adminKey });
    expect(list.status).toBe(200);
    expect(list.body.servers.map((s: { name: string }) => s.name)).toEqual(["everything", "everything2"]);
  });

  it("lists tools as mcp__<server>__<tool>, applies enable/disable, carries readOnlyHint", async () => {
    const all = await t.call("GET", `${servers(tenant.tenantId)}/everything/tools`, { key: tenant.adminKey });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    const names = all.body.tools.map((x: { name: string }) => x.name);
    expect(names).toContain("mcp__everything__echo");
    expect(names).toContain("mcp__everything__get-sum");
    expect(names).not.toContain("mcp__everything__get-env");
    const echo = all.body.tools.find((x: { name: string }) => x.name === "mcp__everything__echo");
    expect(echo).toMatchObject({ readOnly: true, annotations: { readOnlyHint: true } });
    expect(echo.inputSchema).toMatchObject({ type: "object", properties: { message: { type: "string" } } });
    const toggle = all.body.tools.find(
      (x: { name: string }) => x.name === "mcp__everything__toggle-simulated-logging",
    );
    expect(toggle.readOnly).toBe(false);

    const filtered = await t.call("GET", `${servers(tenant.tenantId)}/everything2/tools`, {
      key: tenant.adminKey,
    });
    expect(filtered.body.tools.map((x: { name: string }) => x.name)).toEqual([
      "mcp__everything2__echo",
      "mcp__everything2__toggle-simulated-logging",
    ]);
  });

  it("calls tools under the tenant's rules: allow, deny, read-only allow and ask", async () => {
    const rules = {
      allow: ["mcp__everything__toggle-simulated-logging"],
      deny: ["mcp__everything__echo"],
      ask: [],
    };
    const put = await t.call("PUT", `/v1/tenants/${tenant.tenantId}/rules`, {
      key: tenant.adminKey,
      body: rules,
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const tools = await t.refreshTools(tenant.tenantId);
    expect(tools.length).toBeGreaterThan(5);
    const s = await t.call("POST", "/v1/sessions", { key: tenant.agentKey, body: {} });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    sid = s.body.id;

    // Read-only and no rule: allowed by the tool's own check, run over the stateful session.
    const sum = await run("mcp__everything__get-sum", { a: 2, b: 3 });
    expect(sum.status, JSON.stringify(sum)).toBe("succeeded");
    expect(sum.decision.message).toBe("This is a read-only MCP tool. Allowing execution.");
    expect(jobText(sum)).toContain("5");

    // A deny rule beats the read-only hint.
    const denied = await run("mcp__everything__echo", { message: "hi" });
    expect(denied.status).toBe("denied");
    expect(denied.decision).toMatchObject({ behavior: "deny", decidedBy: "rule" });

    // Not read-only: allowed only because a tenant rule allows it.
    const toggled = await run("mcp__everything__toggle-simulated-logging", {});
    expect(toggled.status, JSON.stringify(toggled)).toBe("succeeded");
    expect(toggled.decision).toMatchObject({ behavior: "allow", decidedBy: "rule" });

    // Not read-only and no rule: the tool's own check asks.
    const asked = await run("mcp__everything2__toggle-simulated-logging", {});
    expect(asked.status).toBe("awaiting_approval");
    expect(asked.decision.behavior).toBe("ask");

    // The stateless server: a fresh MCP session for the call.
    const echo2 = await run("mcp__everything2__echo", { message: "stateless" });
    expect(echo2.status, JSON.stringify(echo2)).toBe("succeeded");
    expect(jobText(echo2)).toBe("Echo: stateless");
  });

  it("validates, conflicts, and keeps tenants and roles apart", async () => {
    const overlap = await t.call("POST", servers(tenant.tenantId), {
      key: tenant.adminKey,
      body: { name: "x", transport: "http", url: everything.url, enableTools: ["a"], disableTools: ["a"] },
    });
    expect(overlap.status, JSON.stringify(overlap.body)).toBe(400);
    const badName = await t.call("POST", servers(tenant.tenantId), {
      key: tenant.adminKey,
      body: { name: "bad name", transport: "http", url: everything.url },
    });
    expect(badName.status).toBe(400);
    const dup = await t.call("POST", servers(tenant.tenantId), {
      key: tenant.adminKey,
      body: { name: "everything", transport: "http", url: everything.url },
    });
    expect(dup.status, JSON.stringify(dup.body)).toBe(409);
    const agent = await t.call("GET", servers(tenant.tenantId), { key: tenant.agentKey });
    expect(agent.status).toBe(403);
    const cross = await t.call("GET", `${servers(tenant.tenantId)}/everything`, { key: other.adminKey });
    expect(cross.status).toBe(404);
    const crossList = await t.call("GET", servers(other.tenantId), { key: other.adminKey });
    expect(crossList.body.servers).toEqual([]);
    const admin = await t.call("GET", `${servers(tenant.tenantId)}/everything`, { key: ADMIN_KEY });
    expect(admin.status).toBe(200);
  });

  it("removes a server: 404 afterwards and its tools are gone from the listing", async () => {
    const del = await t.call("DELETE", `${servers(tenant.tenantId)}/everything2`, { key: tenant.adminKey });
    expect(del.status).toBe(204);
    const gone = await t.call("GET", `${servers(tenant.tenantId)}/everything2`, { key: tenant.adminKey });
    expect(gone.status).toBe(404);
    const tools = await t.refreshTools(tenant.tenantId);
    expect(tools.some((x) => x.name.startsWith("mcp__everything2__"))).toBe(false);
    expect(tools.some((x) => x.name === "mcp__everything__echo")).toBe(true);
  });
});
