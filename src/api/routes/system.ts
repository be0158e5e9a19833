/** Unauthenticated liveness and Prometheus metrics. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiDeps } from "../app.js";
import type { AppEnv } from "../context.js";

const health = createRoute({
  method: "get",
  path: "/healthz",
  responses: {
    200: { description: "alive", content: { "application/json": { schema: z.object({ ok: z.boolean() }) } } },
  },
});

const metrics = createRoute({
  method: "get",
  path: "/metrics",
  responses: { 200: { description: "Prometheus text", content: { "text/plain": { schema: z.string() } } } },
});

export function systemRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(health, (c) => c.json({ ok: true }, 200));
  app.openapi(metrics, (c) =>
    c.text(deps.metrics.render(), 200, { "content-type": "text/plain; version=0.0.4" }),
  );
}
