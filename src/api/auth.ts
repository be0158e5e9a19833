/** Bearer-key authentication for `/v1/*`: resolves the caller once per request. */
import type { MiddlewareHandler } from "hono";
import type { Db } from "../db/open.js";
import { authenticate } from "../service/keys.js";
import type { AppEnv } from "./context.js";

export function requireKey(db: Db): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    c.set("principal", authenticate({ db }, match?.[1]));
    await next();
  };
}
