/**
 * Tool names an MCP server answers (attack24a): a server's listing is not the tenant's own
 * configuration, so names that collide (two tools made the same name by `mcpToolName`, or one
 * server's `_b` meeting server `a_`'s `b`) must not make the whole toolkit fail to build: every
 * call of every session of the tenant was a 409 "tool configuration is inconsistent".
 */
import { expect, it } from "vitest";
import { buildTenantToolkit } from "../../../src/service/sessions/build-toolkit.js";
import { createBuiltinTools } from "../../../src/toolkit/builtins.js";
import type { McpClient, McpRawTool } from "../../../src/toolkit/mcp/mcp-client.js";
import { mcpToolSet } from "../../../src/toolkit/mcp/mcp-tool.js";

const client = (name: string) =>
  ({
    name,
    config: { name, transport: "http", url: "https://x.example/", stateful: false },
  }) as unknown as McpClient;
const tools = (...names: string[]) =>
  names.map((name) => ({ name, inputSchema: { type: "object" } }) as McpRawTool);
const config = (mcpServers: string[]) => ({ groups: [], skills: [], externalTools: [], mcpServers });

it("tools whose names collide are listed once (the first), and the rest of the toolkit builds", () => {
  const listed = [
    mcpToolSet(client("a"), tools("x.y", "xxy", "_b", "same", "same")),
    mcpToolSet(client("a_"), tools("b", "c")),
  ];
  const built = buildTenantToolkit(createBuiltinTools(), config(["a", "a_"]), undefined, listed);
  const names = built.listing.tools.map((t) => t.name);
  expect(names).toContain("Bash");
  expect(names.filter((n) => n.startsWith("mcp__"))).toEqual([
    "mcp__a__xxy",
    "mcp__a___b",
    "mcp__a__same",
    "mcp__a___c",
  ]);
});
