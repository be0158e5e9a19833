/**
 * `toolshed openapi [file]`: writes the OpenAPI document without Redis, Docker or a database
 * (the Redocly lint in `npm run check` and the TypeScript client's type generation read it).
 */
import { writeFileSync } from "node:fs";
import type { ApiDeps } from "../api/api-deps.js";
import { createApp } from "../api/app.js";
import { openApiDocument } from "../api/openapi-document.js";
import { createLogger } from "../log.js";
import type { ApiPort } from "../service/api-port.js";
import { Metrics } from "../service/metrics.js";

/** Building the routes touches the port only to pass it on; calling anything on it is a bug here. */
const inert: unknown = new Proxy(() => {}, {
  get: () => inert,
  apply: () => {
    throw new Error("the documentation-only app has no service behind it");
  },
});

/** The API's routes with nothing behind them: `/openapi.json` and `/docs` work, the rest throws. */
export function documentationApp() {
  // Every request counts itself in the metrics, so these are real.
  const metrics = new Metrics();
  const port = new Proxy({} as ApiPort, { get: (_, name) => (name === "metrics" ? metrics : inert) });
  return createApp({
    port,
    sessionMcp: inert as ApiDeps["sessionMcp"],
    bodyLimitBytes: 1,
    logger: createLogger("silent"),
  });
}

export function buildOpenApiDocument() {
  return openApiDocument(documentationApp());
}

export function runOpenApiCli(file: string | undefined, out: NodeJS.WritableStream): number {
  const text = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
  if (file) writeFileSync(file, text);
  else out.write(text);
  return 0;
}
