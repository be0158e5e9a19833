/**
 * Authentication for `/v1/*`: a bearer key, or else the web console's session cookie (CSRF-checked
 * on changes, see cookie-session.ts). Resolves the caller once per request.
 */
import type { MiddlewareHandler } from "hono";
import { passed } from "../call-path.js";
import type { ApiPort } from "../service/api-port.js";
import type { AppEnv } from "./context.js";
import { consoleSession, hasConsoleCookie } from "./cookie-session.js";

export function requireKey(
  port: Pick<ApiPort, "authenticate" | "consoleSessions">,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    if (header === undefined && hasConsoleCookie(c)) {
      c.set("principal", (await consoleSession(c, port)).principal);
    } else {
      const match = /^Bearer\s+(\S+)$/i.exec(header ?? "");
      c.set("principal", await port.authenticate(match?.[1]));
    }
    passed("authenticated");
    await next();
  };
}
