/** Bearer-key authentication for `/v1/*`: resolves the caller once per request. */
import type { MiddlewareHandler } from "hono";
import type { ServiceDeps } from "../service/deps.js";
import { authenticate } from "../service/keys.js";
import type { AppEnv } from "./context.js";

export function requireKey(deps: Pick<ServiceDeps, "db">): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    c.set("principal", authenticate(deps, match?.[1]));
    await next();
  };
}
