/**
 * The outermost middleware: request id, trace context, one access-log line per request and the
 * HTTP metrics. The line names the request id, trace id, tenant, method, matched route pattern,
 * status and duration; never headers, query strings or bodies (where secrets would be).
 */
import { randomUUID } from "node:crypto";
import { ServerResponse } from "node:http";
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Logger } from "../log.js";
import type { ApiPort } from "../service/api-port.js";
import type { AppEnv } from "./context.js";
import { formatTraceparent, traceFrom } from "./trace-context.js";

export function accessLog(deps: { logger: Logger; metrics: ApiPort["metrics"] }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && /^[\w.-]{1,100}$/.test(incoming) ? incoming : `req_${randomUUID()}`;
    const trace = traceFrom(c.req.header("traceparent"));
    // Passed down explicitly (no async context, src/log.ts): the routes give the trace id to the
    // jobs they submit, and the error handler logs under both.
    c.set("requestId", requestId);
    c.set("traceId", trace.traceId);
    await next();
    // Stamped once the response exists (an error handler's too).
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
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const path = routes[i]!.path;
    if (!path.endsWith("*")) return routeLabel(path);
  }
  return "unmatched";
}

/** Route patterns are the app's own (a bounded set): each is rewritten once. */
const labels = new Map<string, string>();
function routeLabel(path: string): string {
  let label = labels.get(path);
  if (label === undefined) {
    label = path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");
    labels.set(path, label);
  }
  return label;
}

/**
 * Sets a header on the response. Under node-server, on Node's own response, which merges it into
 * the head it writes: the response's headers then stay the plain object `c.json` made (a fetch
 * `Headers` per request, built and read back into an object, cost ~5 µs). A value the response
 * carries itself would win there (Node lets the head's own headers override); no route sets these.
 * Elsewhere (`app.request`, or a head already sent), on the response's headers, in place; rebuilt
 * only when they are immutable.
 */
function stamp(c: Parameters<MiddlewareHandler<AppEnv>>[0], name: string, value: string): void {
  const outgoing = nodeOutgoing(c);
  if (outgoing && !outgoing.headersSent) {
    outgoing.setHeader(name, value);
    return;
  }
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}

/** Node's response under a real server (@hono/node-server's `env.outgoing`); absent in `app.request`. */
function nodeOutgoing(c: Parameters<MiddlewareHandler<AppEnv>>[0]): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? outgoing : undefined;
}
