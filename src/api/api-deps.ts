/** What the API's routes are built with (apart from app.ts, so routes do not import their app). */
import type { Logger } from "../log.js";
import type { ApiPort } from "../service/api-port.js";

/** The service's verbs (the port) and what HTTP itself needs; not the service's dependency bag. */
export interface ApiDeps {
  port: ApiPort;
  bodyLimitBytes: number;
  logger: Logger;
}
