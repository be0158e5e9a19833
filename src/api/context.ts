/** The Hono environment shared by every route: the request id and the authenticated caller. */
import type { Principal } from "../service/tenancy/principal.js";

export interface AppEnv {
  Variables: {
    requestId: string;
    /** The request's W3C trace id (access-log.ts): a job it submits is logged under it. */
    traceId: string;
    principal: Principal;
    /** `PUBLIC_URL`'s origin, when configured (cookie-session.ts). */
    publicOrigin: string | undefined;
  };
}
