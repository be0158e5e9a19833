/**
 * The outermost middleware: request id, trace context, one access-log line per request and the
 * HTTP metrics. The line names the request id, trace id, tenant, method, matched route pattern,
 * status and duration; never headers, query strings or bodies (where secrets would be).
 */
import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { type Logger, withLogContext } from "../log.js";
import type { ApiPort } from "../service/api-port.js";
import type { AppEnv } from "./context.js";
import { formatTraceparent, traceFrom } from "./trace-context.js";

export function accessLog(deps: { logger: Logger; metrics: ApiPort["metrics"] }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && /^[\w.-]{1,100}$/.test(incoming) ? incoming : `req_${randomUUID()}`;
    const trace = traceFrom(c.req.header("traceparent"));
    c.set("requestId", requestId);
    c.header("x-request-id", requestId);
    await withLogContext({ requestId, traceId: trace.traceId }, next);
    // Stamped on the response as it is (an error handler's too): `c.header` after the response
    // exists would rebuild it (node-server then materialises a full fetch Response per request).
    stamp(c, "x-request-id", requestId);
    stamp(c, "traceparent", formatTraceparent(trace));
    const route = routeOf(c);
    const status = c.res.status;
    const ms = performance.now() - started;
    deps.metrics.inc("toolshed_http_requests_total", { method: c.req.method, status: String(status) });
    deps.metrics.httpDuration.observe({ method: c.req.method, route, status: String(status) }, ms / 1000);
    const principal = c.get("principal") as AppEnv["Variables"]["principal"] | undefined;
    deps.logger.info(
      {
        requestId,
        traceId: trace.traceId,
        tenantId: principal?.tenantId ?? null,
        keyId: principal?.keyId,
        method: c.req.method,
        route,
        status,
        durationMs: Math.round(ms * 100) / 100,
      },
      "request",
    );
  };
}

/**
 * The matched route pattern in OpenAPI form (`/v1/sessions/{sid}`), never the raw path, so that
 * the metric's label set stays bounded; `unmatched` for a 404 no route answered.
 */
function routeOf(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string {
  const path = matchedRoutes(c)
    .map((r) => r.path)
    .filter((p) => !p.endsWith("*"))
    .at(-1);
  return path === undefined ? "unmatched" : path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");
}

/** Sets a header on the finished response in place; rebuilt only when its headers are immutable. */
function stamp(c: Parameters<MiddlewareHandler<AppEnv>>[0], name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}
