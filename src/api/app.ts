/**
 * The Hono app factory: request ids, trace context, access log and metrics, body limit, bearer auth on `/v1/*`, one route
 * file per resource, one error mapping, and the OpenAPI document at `/openapi.json` + `/docs`.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { consoleRoutes } from "../console/console-routes.js";
import { formatPath, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from "../errors.js";
import type { Logger } from "../log.js";
import type { ApiPort } from "../service/api-port.js";
import { accessLog } from "./access-log.js";
import type { ApiDeps } from "./api-deps.js";
import { requireKey } from "./auth.js";
import type { AppEnv } from "./context.js";
import { DOCS_CSP, docsPage, REDOC_PATH, redocBundle } from "./docs.js";
import { errorResponse, problem } from "./errors.js";
import { declaredLengthLimit, jsonDepthLimit, MAX_JSON_DEPTH, readsJsonDirectly } from "./json-depth.js";
import { openApiDocument, registerSecurity } from "./openapi-document.js";
import { approvalRoutes } from "./routes/approvals.js";
import { auditRoutes } from "./routes/audit.js";
import { callRoutes } from "./routes/calls.js";
import { eventRoutes } from "./routes/events.js";
import { externalToolRoutes } from "./routes/external-tools.js";
import { jobRoutes } from "./routes/jobs.js";
import { mcpServerRoutes } from "./routes/mcp-servers.js";
import { policyRoutes } from "./routes/policy.js";
import { rulesDryRunRoutes } from "./routes/rules-dry-run.js";
import { sessionMcpRoutes } from "./routes/session-mcp.js";
import { sessionRoutes } from "./routes/sessions.js";
import { skillRoutes } from "./routes/skills.js";
import { systemRoutes } from "./routes/system.js";
import { tenantSettingsRoutes } from "./routes/tenant-settings.js";
import { tenantRoutes } from "./routes/tenants.js";
import { toolGroupRoutes } from "./routes/tool-groups.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { RAW_BODY_PATH, workspaceFileRoutes } from "./routes/workspace-files.js";

export type { ApiDeps } from "./api-deps.js";

/** What a lone worker serves: liveness, readiness and metrics, nothing under /v1. */
export function createSystemApp(
  deps: Pick<ApiPort, "metrics" | "readiness"> & { logger: Logger },
): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", accessLog(deps));
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

  app.use("*", accessLog({ logger: deps.logger, metrics: deps.port.metrics }));
  app.use("*", (c, next) => {
    c.set("publicOrigin", deps.publicOrigin);
    return next();
  });
  // File transfers carry raw bytes up to their own limit; every other body is JSON-sized.
  const limit = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw new PayloadTooLargeError(maxSize);
      },
    });
  const jsonLimit = limit(deps.bodyLimitBytes);
  const rawLimit = limit(deps.port.transferMaxBytes);
  // A JSON body under a real server is read from Node's stream after authentication, capped as it
  // is read (json-depth.ts); before it, only its declared length is checked.
  const declaredLimit = declaredLengthLimit(deps.bodyLimitBytes);
  const depthLimit = jsonDepthLimit(MAX_JSON_DEPTH, deps.bodyLimitBytes);
  const raw = (path: string) => RAW_BODY_PATH.test(path);
  app.use("/v1/*", (c, next) => {
    // A body is never inflated here (no gzip bomb): say so rather than fail to parse it.
    const encoding = c.req.header("content-encoding")?.trim().toLowerCase();
    if (encoding && encoding !== "identity")
      throw new UnsupportedMediaTypeError(
        `Content-Encoding ${encoding} is not supported: send the request body uncompressed`,
      );
    if (raw(c.req.path)) return rawLimit(c, next);
    return readsJsonDirectly(c) ? declaredLimit(c, next) : jsonLimit(c, next);
  });
  app.use("/v1/*", requireKey(deps.port));
  app.use("/v1/*", (c, next) => (raw(c.req.path) ? next() : depthLimit(c, next)));

  systemRoutes(app, deps.port);
  tenantRoutes(app, deps);
  sessionRoutes(app, deps);
  callRoutes(app, deps);
  jobRoutes(app, deps);
  approvalRoutes(app, deps);
  eventRoutes(app, deps);
  policyRoutes(app, deps);
  rulesDryRunRoutes(app, deps);
  auditRoutes(app, deps);
  tenantSettingsRoutes(app, deps);
  externalToolRoutes(app, deps);
  toolGroupRoutes(app, deps);
  skillRoutes(app, deps);
  if (deps.port.mcpServers) mcpServerRoutes(app, deps.port.mcpServers);
  if (deps.port.webhooks) webhookRoutes(app, deps.port.webhooks);
  sessionMcpRoutes(app, deps);
  workspaceFileRoutes(app, deps);

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
  consoleRoutes(app, deps);

  app.notFound((c) => problem(c, "NOT_FOUND", `no route for ${c.req.method} ${c.req.path}`));
  app.onError((err, c) => errorResponse(c, err, deps.logger));
  return app;
}
