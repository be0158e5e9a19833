/** The Hono environment shared by every route: the request id and the authenticated caller. */
import type { Principal } from "../service/tenancy/principal.js";

export interface AppEnv {
  Variables: {
    requestId: string;
    principal: Principal;
    /** `PUBLIC_URL`'s origin, when configured (cookie-session.ts). */
    publicOrigin: string | undefined;
  };
}
