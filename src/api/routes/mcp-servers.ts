/** A tenant's MCP servers: add, list, read, remove, and list one server's tools. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { McpServerVerbs } from "../../service/api-port.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses, json, jsonBody } from "../schemas.js";

const Params = z.object({ tid: z.string() });
const NameParams = Params.extend({ name: z.string() });
const Name = z.string().regex(/^[a-zA-Z0-9_-]{1,32}$/);
const ToolNames = z.array(z.string().min(1).max(200)).max(500);
const Secrets = z.record(z.string().min(1).max(200), z.string().max(8192));

const McpServerBody = z
  .discriminatedUnion("transport", [
    z.object({
      name: Name,
      transport: z.literal("http"),
      url: z.string().url().max(2048),
      headers: Secrets.optional().openapi({ description: "Stored encrypted; never returned." }),
      stateful: z.boolean().optional(),
      enableTools: ToolNames.optional(),
      disableTools: ToolNames.optional(),
    }),
    z.object({
      name: Name,
      transport: z.literal("stdio"),
      command: z.string().min(1).max(1024).openapi({ description: "Runs inside the session's sandbox." }),
      args: z.array(z.string().max(4096)).max(100).optional(),
      env: Secrets.optional().openapi({ description: "Stored encrypted; never returned." }),
      enableTools: ToolNames.optional(),
      disableTools: ToolNames.optional(),
    }),
  ])
  .openapi("McpServerInput");

const McpServer = z
  .object({
    name: z.string(),
    transport: z.enum(["http", "stdio"]),
    url: z.string().nullable(),
    command: z.string().nullable(),
    args: z.array(z.string()).nullable(),
    stateful: z.boolean(),
    enableTools: z.array(z.string()).nullable(),
    disableTools: z.array(z.string()).nullable(),
    hasHeaders: z.boolean(),
    hasEnv: z.boolean(),
    createdAt: z.string(),
  })
  .openapi("McpServer");

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
  request: { params: Params, body: jsonBody(McpServerBody) },
  responses: { 201: json(McpServer, "created"), ...errorResponses },
});
const list = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/mcp-servers",
  operationId: "listMcpServers",
  summary: "List the MCP servers",
  security: bearer,
  request: { params: Params },
  responses: {
    200: json(z.object({ servers: z.array(McpServer) }), "the tenant's servers"),
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
  responses: { 200: json(McpServer, "the server"), ...errorResponses },
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
    200: json(z.object({ tools: z.array(McpServerTool) }), "the server's tools as the model sees them"),
    ...errorResponses,
  },
});

export function mcpServerRoutes(app: OpenAPIHono<AppEnv>, mcp: McpServerVerbs): void {
  app.openapi(post, (c) =>
    c.json(mcp.create(c.get("principal"), c.req.valid("param").tid, c.req.valid("json")), 201),
  );
  app.openapi(list, (c) => c.json({ servers: mcp.list(c.get("principal"), c.req.valid("param").tid) }, 200));
  app.openapi(get, (c) => {
    const { tid, name } = c.req.valid("param");
    return c.json(mcp.get(c.get("principal"), tid, name), 200);
  });
  app.openapi(del, (c) => {
    const { tid, name } = c.req.valid("param");
    mcp.delete(c.get("principal"), tid, name);
    return c.body(null, 204);
  });
  app.openapi(tools, async (c) => {
    const { tid, name } = c.req.valid("param");
    const found = await mcp.listTools(c.get("principal"), tid, name);
    const out = found.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      readOnly: t.isReadOnly,
      annotations: t.annotations as Record<string, unknown>,
    }));
    return c.json({ tools: out }, 200);
  });
}
