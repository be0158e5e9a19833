/** What the API's routes are built with (apart from app.ts, so routes do not import their app). */
import type { Logger } from "../log.js";
import type { SessionMcpEndpoint } from "../mcp-server/session-server.js";
import type { ApiPort } from "../service/api-port.js";

/** The service's verbs (the port) and what HTTP itself needs; not the service's dependency bag. */
export interface ApiDeps {
  port: ApiPort;
  /** `/v1/sessions/{sid}/mcp`: made (and closed at shutdown) by the composition root. */
  sessionMcp: Pick<SessionMcpEndpoint, "handle">;
  bodyLimitBytes: number;
  logger: Logger;
  /** `PUBLIC_URL`'s origin: the only one a console change may come from, when set. */
  publicOrigin?: string;
}
