/** Bearer-key authentication for `/v1/*`: resolves the caller once per request. */
import type { MiddlewareHandler } from "hono";
import type { ApiPort } from "../service/api-port.js";
import type { AppEnv } from "./context.js";

export function requireKey(port: Pick<ApiPort, "authenticate">): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    c.set("principal", port.authenticate(match?.[1]));
    await next();
  };
}
