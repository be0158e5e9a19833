/** `PUT/GET /v1/tenants/{tid}/tools`: the tenant's external tools (run by the client, not by us). */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { ExternalToolDef } from "../../contracts/tool-config.js";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses, json, jsonBody, tooLargeResponse } from "../schemas.js";

const TenantParams = z.object({ tid: z.string() });

const ExternalTools = z.array(ExternalToolDef).max(200).openapi("ExternalTools");

const putTools = createRoute({
  method: "put",
  path: "/v1/tenants/{tid}/tools",
  operationId: "setExternalTools",
  summary: "Replace the external tools",
  security: bearer,
  description:
    "Replaces the tenant's external tools. Their calls are decided like any other and then wait in " +
    "`awaiting_external` until `POST /v1/jobs/{jid}/external-result`.",
  request: { params: TenantParams, body: jsonBody(ExternalTools) },
  responses: { 200: json(ExternalTools, "the stored list"), ...errorResponses, ...tooLargeResponse },
});

const getTools = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/tools",
  operationId: "listExternalTools",
  summary: "List the external tools",
  security: bearer,
  request: { params: TenantParams },
  responses: { 200: json(ExternalTools, "the stored list"), ...errorResponses },
});

export function externalToolRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(putTools, async (c) => {
    const { tid } = c.req.valid("param");
    return c.json(await deps.port.putExternalTools(c.get("principal"), tid, c.req.valid("json")), 200);
  });
  app.openapi(getTools, async (c) =>
    c.json(await deps.port.listExternalTools(c.get("principal"), c.req.valid("param").tid), 200),
  );
}
