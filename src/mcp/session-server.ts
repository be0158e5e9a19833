/**
 * `/v1/sessions/{sid}/mcp`: a session exposed as an MCP server over Streamable HTTP, stateless
 * (a fresh SDK `Server` and transport per request, JSON responses), so any API process can
 * answer any request. The caller is the already-authenticated agent key.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "../errors.js";
import type { ServiceDeps } from "../service/deps.js";
import type { Principal } from "../service/principal.js";
import { requireRole } from "../service/principal.js";
import { callSessionTool, listSessionMcpTools, type SessionMcpOptions } from "../service/session-mcp.js";
import { loadSession } from "../service/sessions.js";

/** Answers one Streamable HTTP request for the session; GET/DELETE are 405 (no server stream). */
export async function handleSessionMcp(
  deps: ServiceDeps,
  p: Principal,
  sid: string,
  req: Request,
  opts: SessionMcpOptions = {},
): Promise<Response> {
  // 401/403/404 as plain API errors before any MCP framing.
  requireRole(p, ["agent"]);
  loadSession(deps.db, p, sid);
  if (req.method !== "POST") {
    return new Response(null, { status: 405, headers: { allow: "POST" } });
  }
  const server = createSessionServer(deps, p, sid, opts);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    void server.close().catch(() => undefined);
  }
}

function createSessionServer(deps: ServiceDeps, p: Principal, sid: string, opts: SessionMcpOptions): Server {
  const server = new Server({ name: "toolshed-session", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => {
    const { tools } = listSessionMcpTools(deps, p, sid, opts);
    return { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      return await callSessionTool(
        deps,
        p,
        sid,
        { name: request.params.name, args: request.params.arguments ?? {}, signal: extra.signal },
        opts,
      );
    } catch (err) {
      // An unknown tool is the caller's error (a protocol error); the rest stays generic.
      if (err instanceof AppError && err.code === "VALIDATION") {
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      }
      if (err instanceof AppError) throw new McpError(ErrorCode.InvalidRequest, err.message);
      deps.logger.error({ err, sessionId: sid, tool: request.params.name }, "MCP call failed");
      throw new McpError(ErrorCode.InternalError, "internal error");
    }
  });
  return server;
}
