/**
 * The Hono app factory: request ids, metrics, body limit, bearer auth on `/v1/*`, one route
 * file per resource, one error mapping, and the OpenAPI document at `/openapi.json` + `/docs`.
 */
import { randomUUID } from "node:crypto";
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { formatPath, PayloadTooLargeError, ValidationError } from "../errors.js";
import type { Logger } from "../log.js";
import type { ApiPort } from "../service/api-port.js";
import type { ApiDeps } from "./api-deps.js";
import { requireKey } from "./auth.js";
import type { AppEnv } from "./context.js";
import { DOCS_CSP, docsPage, REDOC_PATH, redocBundle } from "./docs.js";
import { errorResponse, problem } from "./errors.js";
import { jsonDepthLimit } from "./json-depth.js";
import { openApiDocument, registerSecurity } from "./openapi-document.js";
import { auditRoutes } from "./routes/audit.js";
import { callRoutes } from "./routes/calls.js";
import { eventRoutes } from "./routes/events.js";
import { externalToolRoutes } from "./routes/external-tools.js";
import { jobRoutes } from "./routes/jobs.js";
import { mcpServerRoutes } from "./routes/mcp-servers.js";
import { policyRoutes } from "./routes/policy.js";
import { sessionMcpRoutes } from "./routes/session-mcp.js";
import { sessionRoutes } from "./routes/sessions.js";
import { skillRoutes } from "./routes/skills.js";
import { systemRoutes } from "./routes/system.js";
import { tenantSettingsRoutes } from "./routes/tenant-settings.js";
import { tenantRoutes } from "./routes/tenants.js";
import { toolGroupRoutes } from "./routes/tool-groups.js";

export type { ApiDeps } from "./api-deps.js";

/** What a lone worker serves: liveness, readiness and metrics, nothing under /v1. */
export function createSystemApp(
  deps: Pick<ApiPort, "metrics" | "readiness"> & { logger: Logger },
): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  systemRoutes(app, deps);
  app.notFound((c) => problem(c, "NOT_FOUND", `no route for ${c.req.method} ${c.req.path}`));
  app.onError((err, c) => errorResponse(c, err, deps.logger));
  return app;
}

export function createApp(deps: ApiDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const details = result.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message }));
        throw new ValidationError(`invalid request: ${details.map((d) => d.path).join(", ")}`, details);
      }
    },
  });

  app.use("*", async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const id = incoming && /^[\w.-]{1,100}$/.test(incoming) ? incoming : `req_${randomUUID()}`;
    c.set("requestId", id);
    c.header("x-request-id", id);
    await next();
    c.header("x-request-id", id);
    deps.port.metrics.inc("toolshed_http_requests_total", {
      method: c.req.method,
      status: String(c.res.status),
    });
  });
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: deps.bodyLimitBytes,
      onError: () => {
        throw new PayloadTooLargeError(deps.bodyLimitBytes);
      },
    }),
  );
  app.use("/v1/*", requireKey(deps.port));
  app.use("/v1/*", jsonDepthLimit());

  systemRoutes(app, deps.port);
  tenantRoutes(app, deps);
  sessionRoutes(app, deps);
  callRoutes(app, deps);
  jobRoutes(app, deps);
  eventRoutes(app, deps);
  policyRoutes(app, deps);
  auditRoutes(app, deps);
  tenantSettingsRoutes(app, deps);
  externalToolRoutes(app, deps);
  toolGroupRoutes(app, deps);
  skillRoutes(app, deps);
  if (deps.port.mcpServers) mcpServerRoutes(app, deps.port.mcpServers);
  sessionMcpRoutes(app, deps);

  registerSecurity(app);
  let doc: ReturnType<typeof openApiDocument> | undefined;
  const document = () => {
    doc ??= openApiDocument(app);
    return doc;
  };
  app.get("/openapi.json", (c) => c.json(document()));
  app.get("/docs", (c) =>
    c.html(docsPage(document(), "/openapi.json"), 200, { "content-security-policy": DOCS_CSP }),
  );
  app.get(REDOC_PATH, (c) =>
    c.body(redocBundle(), 200, {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=86400",
    }),
  );

  app.notFound((c) => problem(c, "NOT_FOUND", `no route for ${c.req.method} ${c.req.path}`));
  app.onError((err, c) => errorResponse(c, err, deps.logger));
  return app;
}
