/** Unauthenticated liveness, readiness (Redis, Docker engine, database) and Prometheus metrics. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiPort } from "../../service/api-port.js";
import type { AppEnv } from "../context.js";
import { ErrorBody, openEndpointErrors } from "../schemas.js";

const health = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "getHealth",
  summary: "Liveness",
  description: "Liveness: the process answers. It does not look at Redis, Docker or the database.",
  responses: {
    200: { description: "alive", content: { "application/json": { schema: z.object({ ok: z.boolean() }) } } },
    ...openEndpointErrors,
  },
});

const Check = z.object({ ok: z.boolean(), error: z.string().optional() });
const Ready = z.object({ ready: z.boolean(), checks: z.record(z.string(), Check) }).openapi("Readiness");

const ready = createRoute({
  method: "get",
  path: "/readyz",
  operationId: "getReadiness",
  summary: "Readiness of Redis, Docker and the database",
  description:
    "Readiness: Redis, the Docker engine and the database each answer within a second. 503 names the " +
    "checks that failed (`checks.<name>.ok: false`, and in `error.details`).",
  responses: {
    200: { description: "ready", content: { "application/json": { schema: Ready } } },
    503: {
      description: "UNAVAILABLE: a dependency does not answer",
      content: { "application/json": { schema: Ready.extend(ErrorBody.shape) } },
      headers: { "Retry-After": { description: "seconds to wait", schema: { type: "integer" as const } } },
    },
    ...openEndpointErrors,
  },
});

const metrics = createRoute({
  method: "get",
  path: "/metrics",
  operationId: "getMetrics",
  summary: "Prometheus metrics",
  responses: {
    200: { description: "Prometheus text", content: { "text/plain": { schema: z.string() } } },
    ...openEndpointErrors,
  },
});

/** The routes an API and a lone worker both serve. */
export function systemRoutes(app: OpenAPIHono<AppEnv>, deps: Pick<ApiPort, "metrics" | "readiness">): void {
  app.openapi(health, (c) => c.json({ ok: true }, 200));
  app.openapi(ready, async (c) => {
    const report = await deps.readiness.report();
    if (report.ready) return c.json(report, 200);
    const failed = Object.entries(report.checks).filter(([, r]) => !r.ok);
    const details = failed.map(([name, r]) => ({ path: `checks.${name}`, message: r.error ?? "failed" }));
    const error = {
      code: "UNAVAILABLE",
      message: `not ready: ${failed.map(([name]) => name).join(", ")}`,
      details,
    };
    return c.json({ ...report, error, requestId: c.get("requestId") ?? "" }, 503, { "retry-after": "2" });
  });
  app.openapi(metrics, async (c) =>
    c.text(await deps.metrics.render(), 200, { "content-type": deps.metrics.contentType }),
  );
}
