/**
 * The per-tenant bound on MCP servers without a read-then-write transaction: a taken name is a
 * 409 from the primary key, and creates racing at the bound never leave more than the bound.
 * Real SQLite; the statements are the dialect-neutral ones Postgres runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count, eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { mcpServers, tenants } from "../../../src/db/schema.js";
import { ConflictError } from "../../../src/errors.js";
import { SecretBox } from "../../../src/service/secret-box.js";
import type { Principal } from "../../../src/service/tenancy/principal.js";
import {
  createMcpServer,
  deleteMcpServer,
  listMcpServers,
  loadMcpServerConfigs,
  MAX_MCP_SERVERS,
} from "../../../src/service/tool-config/mcp-servers.js";
import { openTestDb } from "../../support/test-db.js";

const admin: Principal = { keyId: "key_admin", role: "admin", tenantId: null };
let dir: string;
let opened: ReturnType<typeof openTestDb>;
let deps: { db: ReturnType<typeof openTestDb>["db"]; secrets: SecretBox };
const http = (name: string) => ({ name, transport: "http" as const, url: `https://mcp.example.com/${name}` });
const total = () =>
  opened.db.select({ n: count() }).from(mcpServers).where(eq(mcpServers.tenantId, "ten_a")).get()!.n;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tsm-"));
  opened = openTestDb(join(dir, "t.db"));
  deps = { db: opened.db, secrets: SecretBox.fromDataDir(dir) };
  opened.db.insert(tenants).values({ id: "ten_a", name: "a", createdAt: "now" }).run();
});
afterEach(() => {
  opened.close();
  rmSync(dir, { recursive: true, force: true });
});

it("a taken name is a 409 and leaves the stored server as it was", async () => {
  const first = await createMcpServer(deps, admin, "ten_a", http("docs"));
  const again = createMcpServer(deps, admin, "ten_a", { ...http("docs"), url: "https://other.example.com/" });
  await expect(again).rejects.toThrow(ConflictError);
  await expect(again).rejects.toThrow("an MCP server named docs already exists");
  expect(await listMcpServers(deps, admin, "ten_a")).toEqual([first]);
});

it("creates racing at the bound keep at most the bound, and a freed place can be taken", async () => {
  for (let i = 0; i < MAX_MCP_SERVERS - 1; i++) await createMcpServer(deps, admin, "ten_a", http(`s${i}`));
  const race = await Promise.allSettled(
    [0, 1, 2, 3, 4].map((i) => createMcpServer(deps, admin, "ten_a", http(`late${i}`))),
  );
  const kept = race.filter((r) => r.status === "fulfilled").length;
  const refused = race.flatMap((r) => (r.status === "rejected" ? [r.reason as Error] : []));
  expect(kept).toBeLessThanOrEqual(1);
  expect(total()).toBe(MAX_MCP_SERVERS - 1 + kept);
  for (const err of refused) {
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.message).toBe(`a tenant may have at most ${MAX_MCP_SERVERS} MCP servers`);
  }
  // Full now (whoever won): one more is refused and rolled back; a delete frees a place.
  if (kept === 0) await createMcpServer(deps, admin, "ten_a", http("filler"));
  await expect(createMcpServer(deps, admin, "ten_a", http("extra"))).rejects.toThrow("at most");
  expect(total()).toBe(MAX_MCP_SERVERS);
  await deleteMcpServer(deps, admin, "ten_a", "s0");
  await createMcpServer(deps, admin, "ten_a", http("extra"));
  expect(total()).toBe(MAX_MCP_SERVERS);
});

it("a stdio server's variables stored before names were checked never reach the server", async () => {
  // As an earlier version stored it: the env sealed as given, LD_PRELOAD and HOME accepted then.
  const env = {
    LD_PRELOAD: "/workspace/x.so",
    HOME: "/tmp",
    "A=B": "x",
    TOKEN: "t",
    // attack25a: a runtime's module path or configuration naming a directory the agent writes.
    PYTHONPATH: "/workspace",
    NODE_PATH: "/workspace/node_modules",
    npm_config_userconfig: "/tmp/npmrc",
    GIT_CONFIG_GLOBAL: "/workspace/gitconfig",
  };
  opened.db
    .insert(mcpServers)
    .values({
      tenantId: "ten_a",
      name: "old",
      transport: "stdio",
      url: null,
      secretsEnc: deps.secrets.seal({ env }, "mcp:ten_a:old"),
      command: "node",
      args: [],
      stateful: true,
      enableTools: null,
      disableTools: null,
      createdAt: "2026-01-01T00:00:00.000Z",
    })
    .run();
  const [stored] = await loadMcpServerConfigs(deps, "ten_a");
  expect(stored?.config).toMatchObject({ transport: "stdio" });
  expect(stored?.config.transport === "stdio" && stored.config.env).toEqual({ TOKEN: "t" });
  // No cwd stored: the executor starts it in its private home, not the workspace.
  expect(stored?.config).not.toHaveProperty("cwd");
});

it("a stdio server starts where its stored cwd says, and only in the workspace or below", async () => {
  const row = (name: string, cwd: string) => ({
    tenantId: "ten_a",
    name,
    transport: "stdio" as const,
    url: null,
    secretsEnc: null,
    command: "node",
    args: [],
    cwd,
    stateful: true,
    enableTools: null,
    disableTools: null,
    createdAt: "2026-01-01T00:00:00.000Z",
  });
  // "bad" as if written by hand into the table: never a directory outside the workspace.
  opened.db
    .insert(mcpServers)
    .values([row("app", "/workspace/app"), row("bad", "/tmp")])
    .run();
  const stored = await loadMcpServerConfigs(deps, "ten_a");
  expect(stored.map((s) => s.config)).toEqual([
    expect.objectContaining({ name: "app", cwd: "/workspace/app" }),
    expect.not.objectContaining({ cwd: expect.anything() }),
  ]);
});
