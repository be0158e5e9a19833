/** A tenant's MCP servers: add, list, read, remove, and list one server's tools. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { McpServerInput, McpServerView } from "../../contracts/tool-config.js";
import type { McpServerVerbs } from "../../service/api-port.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses, json, jsonBody } from "../schemas.js";

const Params = z.object({ tid: z.string() });
const NameParams = Params.extend({ name: z.string() });

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
  security: bearer,
  request: { params: Params, body: jsonBody(McpServerInput) },
  responses: { 201: json(McpServerView, "created"), ...errorResponses },
});
const list = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/mcp-servers",
  security: bearer,
  request: { params: Params },
  responses: {
    200: json(z.object({ servers: z.array(McpServerView) }), "the tenant's servers"),
    ...errorResponses,
  },
});
const get = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/mcp-servers/{name}",
  security: bearer,
  request: { params: NameParams },
  responses: { 200: json(McpServerView, "the server"), ...errorResponses },
});
const del = createRoute({
  method: "delete",
  path: "/v1/tenants/{tid}/mcp-servers/{name}",
  security: bearer,
  request: { params: NameParams },
  responses: { 204: { description: "removed" }, ...errorResponses },
});
const tools = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/mcp-servers/{name}/tools",
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
