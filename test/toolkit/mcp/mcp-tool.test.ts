/** MCPTool and the MCP helpers: naming, flags, permission face, schema, filters, result conversion. */
import { describe, expect, it } from "vitest";
import type { PermissionContext } from "../../../src/permission/types.js";
import { SandboxUnavailableError } from "../../../src/sandbox/sandbox.js";
import type { ToolChunk } from "../../../src/toolkit/content.js";
import { assertMcpServerConfig, filterToolNames } from "../../../src/toolkit/mcp/config.js";
import { mcpContentToBlocks } from "../../../src/toolkit/mcp/convert.js";
import { type McpClient, McpServerError } from "../../../src/toolkit/mcp/mcp-client.js";
import { McpTool, mcpToolName, mcpToolSet } from "../../../src/toolkit/mcp/mcp-tool.js";
import type { ToolRunContext } from "../../../src/toolkit/run-context.js";

const pctx = { mode: "default", rules: { allow: [], deny: [], ask: [] } } as unknown as PermissionContext;
const rctx = { signal: new AbortController().signal } as unknown as ToolRunContext;

function stubClient(call: McpClient["callTool"], config: Partial<McpClient["config"]> = {}): McpClient {
  return {
    name: "srv",
    config: { name: "srv", transport: "http", url: "http://127.0.0.1/mcp", stateful: false, ...config },
    callTool: call,
  } as unknown as McpClient;
}

async function collect(tool: McpTool, input: Record<string, unknown> = {}): Promise<ToolChunk[]> {
  const out: ToolChunk[] = [];
  for await (const c of tool.call(input, rctx) as AsyncIterable<ToolChunk>) out.push(c);
  return out;
}

const text = (chunks: ToolChunk[]) =>
  chunks.flatMap((c) => c.content.map((b) => (b.type === "text" ? b.text : ""))).join("");

describe("MCPTool", () => {
  it("is named mcp__{server}__{tool} with unsafe characters made x", () => {
    expect(mcpToolName("srv", "get-sum")).toBe("mcp__srv__get-sum");
    expect(mcpToolName("srv", "a.b/c d")).toBe("mcp__srv__axbxcxd");
  });

  it.each([
    [true, "allow", "This is a read-only MCP tool. Allowing execution."],
    [false, "ask", "MCP tools must be explicitly allowed by the user."],
    [undefined, "ask", "MCP tools must be explicitly allowed by the user."],
  ])("readOnlyHint %s → %s", (hint, behavior, message) => {
    const tool = new McpTool(
      stubClient(async () => ({ content: [] })),
      {
        name: "t",
        inputSchema: { type: "object" },
        ...(hint === undefined ? {} : { annotations: { readOnlyHint: hint } }),
      },
    );
    expect(tool.isReadOnly).toBe(hint === true);
    expect(tool.checkPermissions({}, pctx)).toMatchObject({ behavior, message });
    expect(tool.checkReadOnly({}, pctx)).toBe(hint === true);
    expect(tool).toMatchObject({
      isMcp: true,
      mcpName: "srv",
      isConcurrencySafe: false,
      isStateInjected: false,
    });
  });

  it("keeps the whole schema and adds properties and required when missing", () => {
    const tool = new McpTool(
      stubClient(async () => ({ content: [] })),
      {
        name: "t",
        description: undefined,
        inputSchema: { type: "object", $defs: { X: { type: "string" } } } as never,
      },
    );
    expect(tool.description).toBe("");
    expect(tool.inputSchema).toEqual({
      type: "object",
      $defs: { X: { type: "string" } },
      properties: {},
      required: [],
    });
  });

  it("turns results, isError and failures into chunks; a sandbox outage propagates", async () => {
    const raw = { name: "echo", inputSchema: { type: "object" as const } };
    const ok = new McpTool(
      stubClient(async (name, args) => ({ content: [{ type: "text", text: `${name}:${args.m}` }] })),
      raw,
    );
    const okChunks = await collect(ok, { m: "hi" });
    expect(text(okChunks)).toBe("echo:hi");
    expect(okChunks[0]?.state).toBe("running");

    const isErr = new McpTool(
      stubClient(async () => ({ content: [{ type: "text", text: "bad" }], isError: true })),
      raw,
    );
    expect((await collect(isErr))[0]?.state).toBe("error");

    const thrown = new McpTool(
      stubClient(async () => {
        throw new McpServerError("MCP server 'srv' did not answer echo within 5 ms.");
      }),
      raw,
    );
    const failed = await collect(thrown);
    expect(failed[0]?.state).toBe("error");
    expect(text(failed)).toBe(
      "Error occurred when calling MCP tool: MCP server 'srv' did not answer echo within 5 ms.",
    );

    const down = new McpTool(
      stubClient(async () => {
        throw new SandboxUnavailableError("gone");
      }),
      raw,
    );
    await expect(collect(down)).rejects.toBeInstanceOf(SandboxUnavailableError);
  });

  it("builds a server's set with the enable/disable filters", () => {
    const raw = ["a", "b", "c"].map((name) => ({ name, inputSchema: { type: "object" as const } }));
    const set = mcpToolSet(
      stubClient(async () => ({ content: [] }), { enableTools: ["a", "b"], disableTools: ["b"] }),
      raw,
    );
    expect(set).toMatchObject({ name: "srv" });
    expect(set.tools.map((t) => t.name)).toEqual(["mcp__srv__a"]);
    expect(filterToolNames({ name: "s", disableTools: ["c"] }, raw).map((t) => t.name)).toEqual(["a", "b"]);
  });
});

describe("MCP server configs", () => {
  it.each([
    [{ name: "bad name", transport: "http", url: "http://x", stateful: false }, /must match/],
    [{ name: "s", transport: "http", url: "ftp://x", stateful: false }, /http or https/],
    [{ name: "s", transport: "http", url: "nope", stateful: false }, /invalid url/],
    [{ name: "s", transport: "http", url: "https://u:p@h/mcp", stateful: false }, /credentials in headers/],
    [{ name: "s", transport: "stdio", command: "" }, /needs a command/],
    [{ name: "s", transport: "stdio", command: "--inspect" }, /'--inspect' starts with '-'/],
    [{ name: "s", transport: "stdio", command: "node", args: ["a\0b"] }, /NUL/],
    [{ name: "s", transport: "stdio", command: "node", env: { K: "\0" } }, /NUL/],
    [
      { name: "s", transport: "stdio", command: "node", enableTools: ["a"], disableTools: ["a"] },
      /overlap: a/,
    ],
  ])("refuses %j", (config, message) => {
    expect(() => assertMcpServerConfig(config as never)).toThrow(message);
  });

  it("accepts good ones", () => {
    expect(() =>
      assertMcpServerConfig({ name: "ok_1-x", transport: "http", url: "https://h/mcp", stateful: true }),
    ).not.toThrow();
  });
});

describe("MCP result conversion", () => {
  it("maps text, images, audio, text resources, links; skips blobs", () => {
    const blocks = mcpContentToBlocks({
      content: [
        { type: "text", text: "t" },
        { type: "image", data: "aW1n", mimeType: "image/png" },
        { type: "audio", data: "YXU=", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///a", text: "x" } },
        { type: "resource", resource: { uri: "file:///b", blob: "Yg==" } },
        { type: "resource_link", uri: "https://e/x", name: "x", mimeType: "text/plain" },
      ],
    });
    expect(blocks.map((b) => b.type)).toEqual(["text", "data", "data", "text", "data"]);
    expect(blocks[1]).toMatchObject({ source: { type: "base64", data: "aW1n", media_type: "image/png" } });
    expect(blocks[3]).toMatchObject({ text: JSON.stringify({ uri: "file:///a", text: "x" }, null, 2) });
    expect(blocks[4]).toMatchObject({ source: { type: "url", url: "https://e/x" }, name: "x" });
  });

  it("says something when only structured content came back", () => {
    expect(mcpContentToBlocks({ content: [], structuredContent: { a: 1 } })).toMatchObject([
      { text: '{"a":1}' },
    ]);
  });
});
