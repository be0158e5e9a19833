/**
 * `GET/PUT /v1/tenants/{tid}/settings`: bypass, agent approvals, approval TTL, quotas, sandbox,
 * working-directory roots.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { TenantSettingsPatch, TenantSettingsView } from "../../contracts/tenant.js";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, conflictResponse, errorResponses, json, jsonBody, tooLargeResponse } from "../schemas.js";

const TenantParams = z.object({ tid: z.string() });

const WHO = [
  "Fields left out keep their value.",
  "`quotas` may only be set by the platform admin (a tenant_admin sending it gets 403); ",
  "`allowBypass`, `agentsMayApprove` and `approvalTtlSeconds` (10 s – 7 days) relax or tune the tenant's own",
  "safety and may be set by its tenant_admin or the platform admin. Defaults: bypass off, agents may not",
  "approve, approvals expire after 3600 s. `sandbox` (image, limits within the platform's caps, environment",
  "variables returned by name only) applies to sessions whose container starts after the change.",
  "`workingDirectoryRoots` (default `/workspace` and `/tmp`; null restores it) bounds the working directories",
  "any key may give a session: outside them a POST or PATCH of the session is a 400, and a directory stored",
  "before the roots narrowed is ignored by every later decision.",
].join(" ");

const getOne = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/settings",
  operationId: "getTenantSettings",
  summary: "Read a tenant's settings",
  security: bearer,
  request: { params: TenantParams },
  responses: { 200: json(TenantSettingsView, "the settings (defaults where unset)"), ...errorResponses },
});

const putOne = createRoute({
  method: "put",
  path: "/v1/tenants/{tid}/settings",
  operationId: "updateTenantSettings",
  summary: "Change a tenant's settings",
  security: bearer,
  description: WHO,
  request: { params: TenantParams, body: jsonBody(TenantSettingsPatch) },
  responses: {
    200: json(TenantSettingsView, "the stored settings"),
    ...errorResponses,
    ...tooLargeResponse,
    // Only when other saves kept landing while this one was merged (it retries a few times first).
    ...conflictResponse,
  },
});

export function tenantSettingsRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(getOne, async (c) =>
    c.json(await deps.port.getTenantSettings(c.get("principal"), c.req.valid("param").tid), 200),
  );
  app.openapi(putOne, async (c) =>
    c.json(
      await deps.port.putTenantSettings(c.get("principal"), c.req.valid("param").tid, c.req.valid("json")),
      200,
    ),
  );
}
