/** A tenant's MCP servers: add, list, read, remove, and list one server's tools. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { McpServerInput, McpServerView } from "../../contracts/tool-config.js";
import type { McpServerVerbs } from "../../service/api-port.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses, json, jsonBody } from "../schemas.js";

const Params = z.object({ tid: z.string() });
const NameParams = Params.extend({ name: z.string() });

const McpHealth = z
  .object({
    state: z.enum(["ok", "error", "unknown"]),
    error: z.string().optional().openapi({ description: "why the last listing failed" }),
    checkedAt: z.string().optional().openapi({ description: "when this API process last listed it" }),
  })
  .openapi("McpHealth", {
    description:
      "How the server's last tool listing went, as this API process saw it; `unknown` until listed " +
      "(stdio servers are listed only inside a session's sandbox).",
  });

const McpServerTool = z
  .object({
    name: z.string(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()),
    readOnly: z.boolean(),
    annotations: z.record(z.string(), z.unknown()),
  })
  .openapi("McpServerTool");

const post = createRoute({
  method: "post",
  path: "/v1/tenants/{tid}/mcp-servers",
  operationId: "addMcpServer",
  summary: "Register an MCP server",
  security: bearer,
  request: { params: Params, body: jsonBody(McpServerInput) },
  responses: { 201: json(McpServerView, "created"), ...errorResponses },
});
const list = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/mcp-servers",
  operationId: "listMcpServers",
  summary: "List the MCP servers",
  security: bearer,
  request: { params: Params },
  responses: {
    200: json(
      z.object({ servers: z.array(McpServerView.extend({ health: McpHealth })) }),
      "the tenant's servers, each with its health (HTTP servers due for a listing are listed first)",
    ),
    ...errorResponses,
  },
});
const get = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/mcp-servers/{name}",
  operationId: "getMcpServer",
  summary: "Read an MCP server",
  security: bearer,
  request: { params: NameParams },
  responses: { 200: json(McpServerView, "the server"), ...errorResponses },
});
const del = createRoute({
  method: "delete",
  path: "/v1/tenants/{tid}/mcp-servers/{name}",
  operationId: "deleteMcpServer",
  summary: "Remove an MCP server",
  security: bearer,
  request: { params: NameParams },
  responses: { 204: { description: "removed" }, ...errorResponses },
});
const tools = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/mcp-servers/{name}/tools",
  operationId: "listMcpServerTools",
  summary: "List an MCP server's tools",
  security: bearer,
  request: { params: NameParams },
  responses: {
    200: json(
      z.object({ tools: z.array(McpServerTool), health: McpHealth }),
      "the server's tools as the model sees them; `health.error` says why a failing server lists none",
    ),
    ...errorResponses,
  },
});

export function mcpServerRoutes(app: OpenAPIHono<AppEnv>, mcp: McpServerVerbs): void {
  app.openapi(post, async (c) =>
    c.json(await mcp.create(c.get("principal"), c.req.valid("param").tid, c.req.valid("json")), 201),
  );
  app.openapi(list, async (c) =>
    c.json({ servers: await mcp.list(c.get("principal"), c.req.valid("param").tid) }, 200),
  );
  app.openapi(get, async (c) => {
    const { tid, name } = c.req.valid("param");
    return c.json(await mcp.get(c.get("principal"), tid, name), 200);
  });
  app.openapi(del, async (c) => {
    const { tid, name } = c.req.valid("param");
    await mcp.delete(c.get("principal"), tid, name);
    return c.body(null, 204);
  });
  app.openapi(tools, async (c) => {
    const { tid, name } = c.req.valid("param");
    const { tools: found, health } = await mcp.listTools(c.get("principal"), tid, name);
    const out = found.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      readOnly: t.isReadOnly,
      annotations: t.annotations as Record<string, unknown>,
    }));
    return c.json({ tools: out, health }, 200);
  });
}
