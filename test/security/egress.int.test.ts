/**
 * Containment: the host connects for a tenant only where the egress policy allows, through the
 * real API. A listener on 127.0.0.1 counts connections: a tenant's HTTP MCP server there is
 * refused (at registration, and at connect time for a row stored while it was allowed) and the
 * listener sees nothing; with EGRESS_ALLOW=127.0.0.1/32 the same server works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { EgressPolicy } from "../../src/net/egress-policy.js";
import { createMcpServer } from "../../src/service/tool-config/mcp-servers.js";
import { LOOPBACK_ALLOW, startTinyMcpServer, type TinyMcpServer } from "../mcp/support.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";

let tiny: TinyMcpServer;

beforeAll(async () => {
  tiny = await startTinyMcpServer({ answerCalls: true });
});
afterAll(() => {
  tiny?.server.closeAllConnections();
  tiny?.server.close();
});

async function tenantOn(h: Harness) {
  const t = await seedTenant(h.call);
  const register = (body: Record<string, unknown>) =>
    h.call("POST", `/v1/tenants/${t.tenantId}/mcp-servers`, { key: t.adminKey, body });
  const tools = (name: string) =>
    h.call("GET", `/v1/tenants/${t.tenantId}/mcp-servers/${name}/tools`, { key: t.adminKey });
  return { ...t, register, tools };
}

describe("without EGRESS_ALLOW", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.stop());

  it("refuses to register loopback, private and metadata URLs with 422 EGRESS_REFUSED on url", async () => {
    const t = await tenantOn(h);
    const port = new URL(tiny.url).port;
    const cases: [string, string][] = [
      [tiny.url, `127.0.0.1 is a loopback address (127.0.0.0/8)`],
      [`http://localhost:${port}/mcp`, "localhost is a local or cloud-metadata name"],
      [`http://[::ffff:127.0.0.1]:${port}/mcp`, "a loopback address (127.0.0.0/8)"],
      [`http://0x7f000001:${port}/mcp`, "127.0.0.1 is a loopback address"],
      ["http://169.254.169.254/latest/meta-data/", "a cloud-metadata address"],
      ["http://metadata.google.internal/computeMetadata/v1/", "a local or cloud-metadata name"],
      ["http://[fd00:ec2::254]/", "a cloud-metadata address"],
      ["https://10.0.0.1/mcp", "a private address (10.0.0.0/8)"],
    ];
    for (const [url, reason] of cases) {
      const res = await t.register({ name: "srv", transport: "http", url });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.error.code).toBe("EGRESS_REFUSED");
      expect(res.body.error.message).toContain(reason);
      expect(res.body.error.message).toContain("EGRESS_ALLOW");
      expect(res.body.error.details).toEqual([{ path: "url", message: res.body.error.message }]);
    }
    expect(
      (await h.call("GET", `/v1/tenants/${t.tenantId}/mcp-servers`, { key: t.adminKey })).body.servers,
    ).toEqual([]);
    expect(tiny.connections).toBe(0);
  });

  it("refuses at connect time a stored server the policy no longer allows, naming the reason", async () => {
    const t = await tenantOn(h);
    const mcp = h.service.deps.mcp!;
    const allowLoopback = new EgressPolicy(loadConfig({ EGRESS_ALLOW: LOOPBACK_ALLOW }).EGRESS_ALLOW);
    // Stored under a policy that allowed loopback (an older config, another process): the runtime still refuses.
    const permissive = { db: h.service.deps.db, secrets: mcp.secrets, egress: allowLoopback };
    const admin = { keyId: "key_test", role: "admin" as const, tenantId: null };
    await createMcpServer(permissive, admin, t.tenantId, { name: "stale", transport: "http", url: tiny.url });
    const res = await t.tools("stale");
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toMatchObject({ code: "EGRESS_REFUSED", details: [{ path: "url" }] });
    expect(res.body.error.message).toContain("127.0.0.1 is a loopback address (127.0.0.0/8)");
    expect(tiny.connections).toBe(0);
  });
});

describe("with EGRESS_ALLOW=127.0.0.1/32", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { EGRESS_ALLOW: LOOPBACK_ALLOW } });
  });
  afterAll(async () => h?.stop());

  it("registers and lists the loopback server, which then sees the connection", async () => {
    const t = await tenantOn(h);
    const res = await t.register({ name: "tiny", transport: "http", url: tiny.url });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const tools = await t.tools("tiny");
    expect(tools.status, JSON.stringify(tools.body)).toBe(200);
    expect(tools.body.tools.map((x: { name: string }) => x.name)).toEqual(["mcp__tiny__wait"]);
    expect(tiny.connections).toBeGreaterThan(0);
    // Only the allowed block: the rest of loopback stays refused.
    const other = await t.register({ name: "other", transport: "http", url: "http://127.0.0.2:9/mcp" });
    expect(other.status, JSON.stringify(other.body)).toBe(422);
  });
});
