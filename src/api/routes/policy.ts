/** `POST /v1/policy/check`: the CLI's policy check over HTTP, for admins testing a rule set. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses, json, jsonBody, readOnlyPost, tooLargeResponse } from "../schemas.js";

const route = createRoute({
  method: "post",
  path: "/v1/policy/check",
  operationId: "checkPolicy",
  ...readOnlyPost,
  summary: "Check calls against rules",
  security: bearer,
  request: { body: jsonBody(z.record(z.string(), z.unknown())) },
  description: "The CLI's policy check over HTTP (api.md): nothing is run or recorded.",
  responses: {
    200: json(z.record(z.string(), z.unknown()), "the engine's answer"),
    ...errorResponses,
    ...tooLargeResponse,
  },
});

export function policyRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(route, (c) => c.json(deps.port.policyCheck(c.get("principal"), c.req.valid("json")), 200));
}
