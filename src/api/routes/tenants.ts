/** Tenants, their keys and their rule sets. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { KeyView, TenantView } from "../../contracts/tenant.js";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import {
  bearer,
  errorResponses,
  json,
  jsonBody,
  PageParams,
  page,
  RuleSetBody,
  tooLargeResponse,
} from "../schemas.js";

const TenantParams = z.object({ tid: z.string() });

const postTenant = createRoute({
  method: "post",
  path: "/v1/tenants",
  operationId: "createTenant",
  summary: "Create a tenant",
  security: bearer,
  request: { body: jsonBody(z.object({ name: z.string().min(1).max(200) })) },
  responses: { 201: json(TenantView, "created"), ...errorResponses, ...tooLargeResponse },
});

const TenantListItem = TenantView.extend({ createdAt: z.string() }).openapi("TenantListItem");

const list = createRoute({
  method: "get",
  path: "/v1/tenants",
  operationId: "listTenants",
  summary: "List tenants",
  security: bearer,
  description: "Every tenant, newest first (platform admin only).",
  request: { query: PageParams },
  responses: {
    200: json(page(TenantListItem).openapi("TenantPage"), "a page of tenants"),
    ...errorResponses,
  },
});

const postKey = createRoute({
  method: "post",
  path: "/v1/tenants/{tid}/keys",
  operationId: "createKey",
  summary: "Create an API key",
  security: bearer,
  request: {
    params: TenantParams,
    body: jsonBody(
      z.object({ role: z.enum(["agent", "tenant_admin"]), name: z.string().max(200).optional() }),
    ),
  },
  responses: {
    201: json(
      z.object({ id: z.string(), key: z.string(), role: z.string() }),
      "created; the key is shown once",
    ),
    ...errorResponses,
    ...tooLargeResponse,
  },
});

const getKeys = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/keys",
  operationId: "listKeys",
  summary: "List a tenant's keys",
  security: bearer,
  request: { params: TenantParams },
  responses: {
    200: json(z.object({ keys: z.array(KeyView) }), "the tenant's keys, without secrets"),
    ...errorResponses,
  },
});

const deleteKey = createRoute({
  method: "delete",
  path: "/v1/keys/{kid}",
  operationId: "revokeKey",
  summary: "Revoke a key",
  security: bearer,
  request: { params: z.object({ kid: z.string() }) },
  responses: { 204: { description: "revoked" }, ...errorResponses },
});

const putRules = createRoute({
  method: "put",
  path: "/v1/tenants/{tid}/rules",
  operationId: "setRules",
  summary: "Replace a tenant's rule set",
  security: bearer,
  request: { params: TenantParams, body: jsonBody(RuleSetBody) },
  responses: { 200: json(RuleSetBody, "the stored set"), ...errorResponses, ...tooLargeResponse },
});

const getRules = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/rules",
  operationId: "getRules",
  summary: "Read a tenant's rule set",
  security: bearer,
  request: { params: TenantParams },
  responses: { 200: json(RuleSetBody, "the set"), ...errorResponses },
});

export function tenantRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(postTenant, (c) =>
    c.json(deps.port.createTenant(c.get("principal"), c.req.valid("json")), 201),
  );
  app.openapi(list, (c) => c.json(deps.port.listTenants(c.get("principal"), c.req.valid("query")), 200));
  app.openapi(postKey, (c) =>
    c.json(deps.port.createKey(c.get("principal"), c.req.valid("param").tid, c.req.valid("json")), 201),
  );
  app.openapi(getKeys, (c) =>
    c.json({ keys: deps.port.listKeys(c.get("principal"), c.req.valid("param").tid) }, 200),
  );
  app.openapi(deleteKey, (c) => {
    const kid = c.req.valid("param").kid;
    deps.port.revokeKey(c.get("principal"), kid);
    return c.body(null, 204);
  });
  app.openapi(putRules, async (c) =>
    c.json(
      await deps.port.putTenantRules(c.get("principal"), c.req.valid("param").tid, c.req.valid("json")),
      200,
    ),
  );
  app.openapi(getRules, async (c) =>
    c.json(await deps.port.getTenantRules(c.get("principal"), c.req.valid("param").tid), 200),
  );
}
