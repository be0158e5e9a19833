/** `/v1/sessions/{sid}/mcp`: the session as a Streamable HTTP MCP server (agent keys). */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { rawRequest } from "../json-depth.js";
import { bearer, errorResponses } from "../schemas.js";

export function sessionMcpRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  // Documented only: the body is MCP's JSON-RPC, answered by the SDK's transport.
  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/v1/sessions/{sid}/mcp",
    operationId: "sessionMcp",
    summary: "The session as an MCP server",
    security: bearer,
    description:
      "The session as an MCP server (Streamable HTTP, JSON-RPC). An `initialize` opens a stateful MCP " +
      "session (`Mcp-Session-Id`; GET opens its event stream, DELETE ends it); other requests without " +
      "one are answered statelessly. Tools are the session's active tools; calls go through the same " +
      "policy, queue and sandbox as `POST /v1/sessions/{sid}/calls`.",
    request: { params: z.object({ sid: z.string() }) },
    responses: { 200: { description: "a JSON-RPC answer (JSON or an SSE stream)" }, ...errorResponses },
  });
  app.on(["GET", "POST", "DELETE"], "/v1/sessions/:sid/mcp", async (c) =>
    deps.sessionMcp.handle(c.get("principal"), c.req.param("sid"), await rawRequest(c)),
  );
}
