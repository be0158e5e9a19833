/**
 * MCPTool (docs/toolkit.md#mcp-tools): `mcp__{server}__{tool}`, the server's input schema, read-only
 * from `readOnlyHint` (ALLOW; otherwise ASK unless a rule decides), never concurrency-safe.
 * A failing or hung server gives an error result; the rest of the session is unaffected.
 */
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { genericPolicy } from "../../permission/generic.js";
import type { PermissionSubject, ToolInput } from "../../permission/types.js";
import { SandboxUnavailableError } from "../../sandbox/sandbox.js";
import type { ToolChunk } from "../content.js";
import { PolicyTool } from "../policy-tool.js";
import { chunk, textChunk } from "../response.js";
import type { ToolRunContext } from "../run-context.js";
import type { JsonSchemaObject, ToolOptions } from "../tool-base.js";
import type { McpToolSet } from "../tool-group.js";
import { filterToolNames } from "./config.js";
import { mcpContentToBlocks } from "./convert.js";
import type { McpClient, McpRawTool } from "./mcp-client.js";

/** The reference's error text for a call that failed. */
export const MCP_CALL_ERROR_PREFIX = "Error occurred when calling MCP tool: ";

/** `mcp__{server}__{tool}`, with characters outside `[a-zA-Z0-9_-]` in the tool name made `x`. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, "x")}`;
}

export class McpTool extends PolicyTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  readonly isReadOnly: boolean;
  readonly isConcurrencySafe = false;
  override readonly isMcp = true;
  override readonly mcpName: string;
  /** The server's hints, passed on when a session is exposed as an MCP server. */
  readonly annotations: ToolAnnotations;
  protected readonly permission: PermissionSubject;

  constructor(
    private readonly client: McpClient,
    readonly raw: McpRawTool,
    opts: ToolOptions = {},
  ) {
    super(opts);
    this.name = mcpToolName(client.name, raw.name);
    this.mcpName = client.name;
    this.description = raw.description ?? "";
    this.inputSchema = normalizeSchema(raw.inputSchema);
    this.annotations = { ...(raw.annotations ?? {}) };
    this.isReadOnly = raw.annotations?.readOnlyHint === true;
    this.permission = genericPolicy(this.name, { kind: "mcp", readOnly: this.isReadOnly });
  }

  override async *call(input: ToolInput, ctx: ToolRunContext): AsyncIterable<ToolChunk> {
    try {
      const result = await this.client.callTool(this.raw.name, input, {
        sandbox: ctx.sandbox,
        signal: ctx.signal,
        ...(ctx.attempt ? { attempt: ctx.attempt } : {}),
      });
      yield chunk(mcpContentToBlocks(result), { state: result.isError ? "error" : "running" });
    } catch (err) {
      // The sandbox being down is the worker's to retry; anything else is this call's result.
      if (err instanceof SandboxUnavailableError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      yield textChunk(`${MCP_CALL_ERROR_PREFIX}${message}`, { state: "error" });
    }
  }
}

/** The filtered tools of one server as a toolkit MCP set (the reference's `list_tools`). */
export function mcpToolSet(client: McpClient, rawTools: readonly McpRawTool[]): McpToolSet {
  return {
    name: client.name,
    tools: filterToolNames(client.config, rawTools).map((t) => new McpTool(client, t)),
  };
}

/** The whole schema, with `type`, `properties` and `required` added when missing. */
function normalizeSchema(schema: McpRawTool["inputSchema"] | undefined): JsonSchemaObject {
  const s = structuredClone(schema ?? {}) as Record<string, unknown>;
  return {
    ...s,
    type: "object",
    properties: (s.properties as Record<string, unknown> | undefined) ?? {},
    required: (s.required as string[] | undefined) ?? [],
  };
}
