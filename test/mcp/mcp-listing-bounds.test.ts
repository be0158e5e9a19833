/**
 * What one MCP server's listing costs each call (attack24a): every call of a tenant with MCP
 * servers builds its toolkit anew, and building an `McpTool` clones its schema. A server listing
 * 10,000 tools made that 236 ms of the process's one thread per call (measured), so a tenant's calls
 * could stall every tenant's. A listing keeps at most MAX_TOOLS_PER_SERVER tools, and the tools
 * built from one listing are reused until it changes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { tenants } from "../../src/db/schema.js";
import { createLogger } from "../../src/log.js";
import { EgressPolicy } from "../../src/net/egress-policy.js";
import { SecretBox } from "../../src/service/secret-box.js";
import { McpClients } from "../../src/service/sessions/mcp-clients.js";
import type { Principal } from "../../src/service/tenancy/principal.js";
import { createMcpServer } from "../../src/service/tool-config/mcp-servers.js";
import { MAX_TOOLS_PER_SERVER } from "../../src/toolkit/mcp/mcp-client.js";
import { openTestDb } from "../support/test-db.js";
import { LOOPBACK_ALLOW, startTinyMcpServer, type TinyMcpServer } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "tsm-"));
const { db, close } = openTestDb(join(dir, "t.db"));
const secrets = SecretBox.fromDataDir(dir);
const egress = new EgressPolicy(loadConfig({ EGRESS_ALLOW: LOOPBACK_ALLOW }).EGRESS_ALLOW);
const admin: Principal = { keyId: "key_admin", role: "admin", tenantId: null };
let tiny: TinyMcpServer;
let clients: McpClients;

beforeAll(async () => {
  tiny = await startTinyMcpServer({ answerCalls: true, extraTools: MAX_TOOLS_PER_SERVER + 500 });
  db.insert(tenants).values({ id: "ten_a", name: "a", createdAt: "now" }).run();
  clients = new McpClients({ db, secrets, logger: createLogger("silent"), egress }, { listTimeoutMs: 5_000 });
  await createMcpServer({ db, secrets, egress }, admin, "ten_a", {
    name: "many",
    transport: "http",
    url: tiny.url,
  });
});

afterAll(async () => {
  await clients.close();
  tiny.server.closeAllConnections();
  tiny.server.close();
  close();
  rmSync(dir, { recursive: true, force: true });
});

it("a listing keeps at most MAX_TOOLS_PER_SERVER tools, in the server's order", async () => {
  const [set] = await clients.toolSets("ten_a");
  expect(set?.tools).toHaveLength(MAX_TOOLS_PER_SERVER);
  expect(set?.tools[0]?.name).toBe("mcp__many__wait");
});

it("the tools built from one listing are the same objects on every call until it changes", async () => {
  const [first] = await clients.toolSets("ten_a");
  const [again] = await clients.toolSets("ten_a");
  expect(tiny.listings).toBe(1);
  expect(again?.tools[0]).toBe(first?.tools[0]);
  clients.invalidate("ten_a", "many");
  const [fresh] = await clients.toolSets("ten_a");
  expect(tiny.listings).toBe(2);
  expect(fresh?.tools[0]).not.toBe(first?.tools[0]);
});
