/** A tenant's tool groups: replaced as a whole by PUT, read by GET. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses, json, jsonBody } from "../schemas.js";

const Name = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: "must match ^[A-Za-z0-9_-]{1,64}$" });

const ToolGroup = z
  .object({
    name: Name,
    description: z.string().min(1).max(4000),
    instructions: z.string().max(20_000).optional(),
    tools: z.array(z.string()).max(200),
    skills: z.array(z.string()).max(200).optional(),
    mcpServers: z.array(z.string()).max(50).optional(),
  })
  .openapi("ToolGroup");
const ToolGroups = z.array(ToolGroup).max(100).openapi("ToolGroups");
const TenantParams = z.object({ tid: z.string() });

const putGroups = createRoute({
  method: "put",
  path: "/v1/tenants/{tid}/tool-groups",
  operationId: "setToolGroups",
  summary: "Replace the tool groups",
  security: bearer,
  request: { params: TenantParams, body: jsonBody(ToolGroups) },
  responses: { 200: json(ToolGroups, "the stored groups"), ...errorResponses },
});

const getGroups = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/tool-groups",
  operationId: "listToolGroups",
  summary: "List the tool groups",
  security: bearer,
  request: { params: TenantParams },
  responses: { 200: json(ToolGroups, "the groups"), ...errorResponses },
});

export function toolGroupRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(putGroups, async (c) =>
    c.json(
      await deps.port.putToolGroups(c.get("principal"), c.req.valid("param").tid, c.req.valid("json")),
      200,
    ),
  );
  app.openapi(getGroups, (c) =>
    c.json(deps.port.listToolGroups(c.get("principal"), c.req.valid("param").tid), 200),
  );
}
