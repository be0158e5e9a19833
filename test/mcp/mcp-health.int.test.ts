/**
 * MCP servers' health through the real API: an unreachable server's listing error reaches the
 * tenant admin (the list and the tools endpoint), next to a healthy one and a not-yet-listed one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenant } from "../support/harness.js";
import {
  freePort,
  type McpHarness,
  startMcpHarness,
  startTinyMcpServer,
  type TinyMcpServer,
} from "./support.js";

let t: McpHarness;
let tiny: TinyMcpServer;

beforeAll(async () => {
  tiny = await startTinyMcpServer({ answerCalls: false });
  t = await startMcpHarness({ clients: { listTimeoutMs: 2000 } });
});
afterAll(async () => {
  await t?.stop();
  tiny?.server.closeAllConnections();
  tiny?.server.close();
});

describe("MCP server health", () => {
  it("shows ok, the error of an unreachable server, and unknown for a stdio server", async () => {
    const a = await seedTenant(t.call, "a");
    const b = await seedTenant(t.call, "b");
    const base = `/v1/tenants/${a.tenantId}/mcp-servers`;
    // Nothing listens there: the connection is refused at once.
    const down = `http://127.0.0.1:${await freePort()}/mcp`;
    for (const body of [
      { name: "tiny", transport: "http", url: tiny.url },
      { name: "down", transport: "http", url: down },
      { name: "local", transport: "stdio", command: "node" },
    ]) {
      const res = await t.call("POST", base, { key: a.adminKey, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }

    const list = await t.call("GET", base, { key: a.adminKey });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    const health = Object.fromEntries(
      list.body.servers.map((s: { name: string; health: unknown }) => [s.name, s.health]),
    );
    expect(health.tiny).toEqual({ state: "ok", checkedAt: expect.any(String) });
    expect(health.down).toEqual({
      state: "error",
      error: expect.stringContaining("MCP server 'down' failed to connect"),
      checkedAt: expect.any(String),
    });
    expect(health.local).toEqual({ state: "unknown" });

    const tools = await t.call("GET", `${base}/down/tools`, { key: a.adminKey });
    expect(tools.status).toBe(200);
    expect(tools.body.tools).toEqual([]);
    expect(tools.body.health).toMatchObject({ state: "error", error: expect.stringContaining("'down'") });
    const good = await t.call("GET", `${base}/tiny/tools`, { key: a.adminKey });
    expect(good.body.health.state).toBe("ok");
    expect(good.body.tools.length).toBeGreaterThan(0);

    const cross = await t.call("GET", base, { key: b.adminKey });
    expect(cross.status).toBe(404);
  });
});
