/**
 * MCP server configurations (docs/toolkit.md#mcp-tools): HTTP (Streamable HTTP, stateful or stateless,
 * headers are secrets) and stdio (always stateful, run inside the session's sandbox).
 */
import { ToolkitConfigError } from "../toolkit-errors.js";
import { argumentProblem, pathOperandProblem } from "../tools/operands.js";

/** Server names: the reference's pattern, bounded so `mcp__{server}__{tool}` stays short. */
export const MCP_SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;

/** What both transports share. */
interface McpServerBase {
  name: string;
  /** Keep only these tools (applied first). */
  enableTools?: string[] | null;
  /** Then drop these. */
  disableTools?: string[] | null;
  /** Per-call timeout; default `McpClientOptions.callTimeoutMs`. */
  callTimeoutMs?: number;
}

/** A Streamable HTTP server; `headers` (e.g. Authorization) are secrets. */
export interface HttpMcpServerConfig extends McpServerBase {
  transport: "http";
  url: string;
  headers?: Record<string, string>;
  /** Stateful: one session kept open; stateless: a fresh session per listing and per call. */
  stateful: boolean;
}

/** A stdio server, started inside the calling session's sandbox; `env` values are secrets. */
export interface StdioMcpServerConfig extends McpServerBase {
  transport: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export type McpServerConfig = HttpMcpServerConfig | StdioMcpServerConfig;

/** Throws ToolkitConfigError for a bad name, URL or overlapping filters. */
export function assertMcpServerConfig(config: McpServerConfig): void {
  if (!MCP_SERVER_NAME.test(config.name)) {
    throw new ToolkitConfigError(`MCP server name '${config.name}' must match ${MCP_SERVER_NAME.source}.`);
  }
  const overlap = (config.enableTools ?? []).filter((t) => (config.disableTools ?? []).includes(t));
  if (overlap.length > 0) {
    throw new ToolkitConfigError(`enableTools and disableTools must not overlap: ${overlap.join(", ")}.`);
  }
  if (config.transport === "http") {
    let url: URL;
    try {
      url = new URL(config.url);
    } catch {
      throw new ToolkitConfigError(`MCP server '${config.name}': invalid url.`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new ToolkitConfigError(`MCP server '${config.name}': the url must be http or https.`);
    }
    // URLs are stored and returned in clear; credentials belong in the (encrypted) headers.
    if (url.username || url.password) {
      throw new ToolkitConfigError(
        `MCP server '${config.name}': put credentials in headers, not in the url.`,
      );
    }
  } else {
    assertStdioCommand(config);
  }
}

/** The command is argv[0] (a program, never an option); no argv element or env value may hold a NUL. */
function assertStdioCommand(config: StdioMcpServerConfig): void {
  if (!config.command) throw new ToolkitConfigError(`MCP server '${config.name}': stdio needs a command.`);
  const problem =
    pathOperandProblem(config.command) ??
    (config.args ?? []).map(argumentProblem).find((p) => p !== null) ??
    Object.values(config.env ?? {})
      .map(argumentProblem)
      .find((p) => p !== null);
  if (problem) throw new ToolkitConfigError(`MCP server '${config.name}': command, args or env ${problem}.`);
}

/** The reference's filters: keep `enableTools` (when set), then drop `disableTools`. */
export function filterToolNames<T extends { name: string }>(config: McpServerBase, tools: readonly T[]): T[] {
  const enabled = config.enableTools;
  const disabled = new Set(config.disableTools ?? []);
  return tools.filter((t) => (enabled ? enabled.includes(t.name) : true) && !disabled.has(t.name));
}
