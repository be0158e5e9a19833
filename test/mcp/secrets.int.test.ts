/**
 * Secrets and failures of tenant MCP servers: header and env values never appear in an API
 * answer, in the database in clear, or in the logs (captured at trace level); a hung server
 * times out with a clear error result while the session's other tools keep working.
 */
import type { Server } from "node:http";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpServers } from "../../src/db/schema.js";
import { seedTenant } from "../support/harness.js";
import {
  jobText,
  type McpHarness,
  startDeadServer,
  startMcpHarness,
  startTinyMcpServer,
  type TinyMcpServer,
} from "./support.js";

const HEADER_SECRET = "sk-HEADER-SECRET-7f3a9c";
const KEY_SECRET = "KEY-SECRET-51b2e8";
const ENV_SECRET = "ENV-SECRET-0d4c11";
const SECRETS = [HEADER_SECRET, KEY_SECRET, ENV_SECRET];

let t: McpHarness;
let tenant: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;
let hung: TinyMcpServer;
let dead: { url: string; server: Server };

const close = (s?: Server) =>
  new Promise<void>((r) => {
    if (!s) return r();
    s.closeAllConnections();
    s.close(() => r());
  });

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

beforeAll(async () => {
  hung = await startTinyMcpServer({ answerCalls: false });
  dead = await startDeadServer();
  t = await startMcpHarness({
    captureLogs: true,
    clients: { listTimeoutMs: 1000, callTimeoutMs: 1500, failureTtlMs: 0 },
  });
  tenant = await seedTenant(t.call);
  const rules = { allow: ["Bash"], deny: [], ask: [] };
  const put = await t.call("PUT", `/v1/tenants/${tenant.tenantId}/rules`, {
    key: tenant.adminKey,
    body: rules,
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const s = await t.call("POST", "/v1/sessions", { key: tenant.agentKey, body: {} });
  sid = s.body.id;
});

afterAll(async () => {
  if (sid) await t?.call("DELETE", `/v1/sessions/${sid}`, { key: tenant.agentKey });
  await t?.stop();
  await close(hung?.server);
  await close(dead?.server);
});

describe("MCP secrets", () => {
  it("never returns header or env values, and stores them encrypted", async () => {
    const base = `/v1/tenants/${tenant.tenantId}/mcp-servers`;
    const answers: unknown[] = [];
    const post = async (body: unknown) => {
      const res = await t.call("POST", base, { key: tenant.adminKey, body });
      answers.push(res.body);
      return res;
    };
    const a = await post({
      name: "hung",
      transport: "http",
      url: hung.url,
      headers: { authorization: `Bearer ${HEADER_SECRET}`, "x-api-key": KEY_SECRET },
    });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(a.body.hasHeaders).toBe(true);
    expect(a.body).not.toHaveProperty("headers");
    const b = await post({ name: "tool", transport: "stdio", command: "node", env: { TOKEN: ENV_SECRET } });
    expect(b.status, JSON.stringify(b.body)).toBe(201);
    expect(b.body.hasEnv).toBe(true);
    // Refused inputs do not echo the values either.
    const bad = await post({
      name: "bad name",
      transport: "http",
      url: hung.url,
      headers: { h: HEADER_SECRET },
    });
    expect(bad.status).toBe(400);
    const dup = await post({ name: "hung", transport: "http", url: hung.url, headers: { h: HEADER_SECRET } });
    expect(dup.status).toBe(409);
    for (const path of [base, `${base}/hung`, `${base}/tool`, `${base}/hung/tools`]) {
      const res = await t.call("GET", path, { key: tenant.adminKey });
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
      answers.push(res.body);
    }
    expectNoSecret(JSON.stringify(answers));

    const rows = t.h.service.deps.db
      .select()
      .from(mcpServers)
      .where(eq(mcpServers.tenantId, tenant.tenantId))
      .all();
    expect(rows).toHaveLength(2);
    expectNoSecret(JSON.stringify(rows));
    expect(rows.every((r) => r.secretsEnc?.startsWith("v1."))).toBe(true);
  });

  it("sends the headers to the server it belongs to", async () => {
    const tools = await t.refreshTools(tenant.tenantId);
    expect(tools.map((x) => x.name)).toContain("mcp__hung__wait");
    expect(hung.headers.some((h) => h.authorization === `Bearer ${HEADER_SECRET}`)).toBe(true);
    expect(hung.headers.every((h) => h["x-api-key"] === KEY_SECRET)).toBe(true);
  });

  it("a hung server's call times out with a clear error result; the session keeps working", async () => {
    const res = await t.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
      key: tenant.agentKey,
      body: { tool: "mcp__hung__wait", input: {} },
    });
    // 200: it ended within the wait, by the call timeout (the text below says so).
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.job.status).toBe("failed");
    expect(jobText(res.body.job)).toBe(
      "Error occurred when calling MCP tool: MCP server 'hung' did not answer wait within 1500 ms.",
    );
    const ok = await t.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
      key: tenant.agentKey,
      body: { tool: "Bash", input: { command: "echo still fine" } },
    });
    expect(jobText(ok.body.job)).toBe("still fine\n");
  });

  it("a server that never answers at all is listed as empty within the listing timeout", async () => {
    const res = await t.call("POST", `/v1/tenants/${tenant.tenantId}/mcp-servers`, {
      key: tenant.adminKey,
      body: {
        name: "dead",
        transport: "http",
        url: dead.url,
        headers: { authorization: `Bearer ${HEADER_SECRET}` },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const tools = await t.refreshTools(tenant.tenantId);
    expect(tools.some((x) => x.name.startsWith("mcp__dead__"))).toBe(false);
    expect(tools.some((x) => x.name === "mcp__hung__wait")).toBe(true);
    expect(t.logs()).toContain("MCP server 'dead' did not connect within 1000 ms.");
  });

  it("no secret appears anywhere in the logs", () => {
    const logs = t.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).toContain("MCP server listing failed");
    expectNoSecret(logs);
  });
});
