/** A tenant's tool groups: replaced as a whole by PUT, read by GET. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { ToolGroupDef } from "../../contracts/tool-config.js";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses, json, jsonBody } from "../schemas.js";

const ToolGroups = z.array(ToolGroupDef).max(100).openapi("ToolGroups");
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
  app.openapi(getGroups, async (c) =>
    c.json(await deps.port.listToolGroups(c.get("principal"), c.req.valid("param").tid), 200),
  );
}
