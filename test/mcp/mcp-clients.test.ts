/**
 * The runtime's listing cache (docs/toolkit.md#mcp-tools): one listing per TTL per (tenant, server),
 * invalidated on add/remove, a re-created server starts over, a failing server is remembered
 * briefly and does not hide the others. Real SQLite, a tiny MCP server on loopback.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { tenants } from "../../src/db/schema.js";
import { createLogger } from "../../src/log.js";
import { EgressPolicy } from "../../src/net/egress-policy.js";
import { SecretBox } from "../../src/service/secret-box.js";
import { McpClients } from "../../src/service/sessions/mcp-clients.js";
import type { Principal } from "../../src/service/tenancy/principal.js";
import { createMcpServer, deleteMcpServer } from "../../src/service/tool-config/mcp-servers.js";
import { openTestDb } from "../support/test-db.js";
import { pollUntil } from "../support/wait-for-job.js";
import { LOOPBACK_ALLOW, startDeadServer, startTinyMcpServer, type TinyMcpServer } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "tsm-"));
const { db, close } = openTestDb(join(dir, "t.db"));
const secrets = SecretBox.fromDataDir(dir);
const egress = new EgressPolicy(loadConfig({ EGRESS_ALLOW: LOOPBACK_ALLOW }).EGRESS_ALLOW);
const admin: Principal = { keyId: "key_admin", role: "admin", tenantId: null };
let clock = 0;
let tiny: TinyMcpServer;
let dead: Awaited<ReturnType<typeof startDeadServer>>;
let clients: McpClients;

beforeAll(async () => {
  tiny = await startTinyMcpServer({ answerCalls: true });
  dead = await startDeadServer();
  db.insert(tenants).values({ id: "ten_a", name: "a", createdAt: "now" }).run();
  clients = new McpClients(
    { db, secrets, logger: createLogger("silent"), egress },
    { listingTtlMs: 60_000, failureTtlMs: 5_000, listTimeoutMs: 500, now: () => clock },
  );
});

afterAll(async () => {
  await clients.close();
  tiny.server.closeAllConnections();
  tiny.server.close();
  dead.server.closeAllConnections();
  dead.server.close();
  close();
  rmSync(dir, { recursive: true, force: true });
});

const svc = () => ({
  db,
  secrets,
  egress,
  onChange: (tid: string, name: string) => clients.invalidate(tid, name),
});

describe("McpClients listing cache", () => {
  it("lists once per TTL, again after it expires", async () => {
    await createMcpServer(svc(), admin, "ten_a", { name: "tiny", transport: "http", url: tiny.url });
    const first = await clients.toolSets("ten_a");
    expect(first.map((s) => [s.name, s.tools.map((t) => t.name)])).toEqual([["tiny", ["mcp__tiny__wait"]]]);
    expect(tiny.listings).toBe(1);
    clock += 59_000;
    await clients.toolSets("ten_a");
    expect(tiny.listings).toBe(1);
    clock += 2_000;
    await clients.toolSets("ten_a");
    expect(tiny.listings).toBe(2);
  });

  it("is invalidated when the server is removed and added again", async () => {
    await deleteMcpServer(svc(), admin, "ten_a", "tiny");
    expect(await clients.toolSets("ten_a")).toEqual([]);
    await createMcpServer(svc(), admin, "ten_a", {
      name: "tiny",
      transport: "http",
      url: tiny.url,
      stateful: true,
    });
    await clients.toolSets("ten_a");
    expect(tiny.listings).toBe(3);
  });

  it("a dead server yields an empty set, is remembered for the failure TTL, and hides nothing else", async () => {
    await createMcpServer(svc(), admin, "ten_a", { name: "dead", transport: "http", url: dead.url });
    // The listing resolves although the server never answers: the list timeout gave up on it.
    const sets = await clients.toolSets("ten_a");
    expect(sets.map((s) => [s.name, s.tools.length])).toEqual([
      ["dead", 0],
      ["tiny", 1],
    ]);
    const tried = dead.requests();
    expect(tried).toBeGreaterThan(0);
    // Within the failure TTL the dead server is not asked again.
    const again = await clients.toolSets("ten_a");
    expect(again.map((s) => s.name)).toEqual(["dead", "tiny"]);
    expect(dead.requests()).toBe(tried);
  });

  it("a server whose last listing failed is asked again in the background: calls do not wait on it again (attack24a)", async () => {
    const failure = clients.lastFailure("ten_a", "dead");
    expect(failure).toBeDefined();
    const tried = dead.requests();
    clock += 6_000; // past the failure TTL, within tiny's listing TTL
    const sets = await clients.toolSets("ten_a");
    expect(sets.map((s) => [s.name, s.tools.length])).toEqual([
      ["dead", 0],
      ["tiny", 1],
    ]);
    // Answered before the new listing ended: its failure is still the old one.
    expect(clients.lastFailure("ten_a", "dead")).toBe(failure);
    // The listing did go out, and fails on its own time (the list timeout).
    await pollUntil(
      () => clients.lastFailure("ten_a", "dead"),
      (now) => now !== failure,
      { timeoutMs: 5_000, what: "the background listing's failure" },
    );
    expect(dead.requests()).toBeGreaterThan(tried);
  });

  it("calls go through the cached tool", async () => {
    const [, tinySet] = await clients.toolSets("ten_a");
    const tool = tinySet!.tools[0]!;
    const chunks = [];
    for await (const c of (await tool.call({}, {
      signal: new AbortController().signal,
    } as never)) as AsyncIterable<unknown>)
      chunks.push(c);
    expect(JSON.stringify(chunks)).toContain("done");
  });
});
