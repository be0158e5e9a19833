/** `/v1/sessions/{sid}/mcp`: the session as a Streamable HTTP MCP server (agent keys). */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { handleSessionMcp } from "../../mcp/session-server.js";
import type { SessionMcpOptions } from "../../service/session-mcp.js";
import type { ApiDeps } from "../app.js";
import type { AppEnv } from "../context.js";

export function sessionMcpRoutes(
  app: OpenAPIHono<AppEnv>,
  deps: ApiDeps,
  opts: SessionMcpOptions = {},
): void {
  app.on(["GET", "POST", "DELETE"], "/v1/sessions/:sid/mcp", (c) =>
    handleSessionMcp(deps, c.get("principal"), c.req.param("sid"), c.req.raw, opts),
  );
}
