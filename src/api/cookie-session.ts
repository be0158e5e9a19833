/**
 * The web console's cookie on `/v1/*`: a signed session (see service/tenancy/console-sessions.ts)
 * instead of a bearer key. A state-changing request must also carry the session's CSRF token in
 * `x-csrf-token` and must not come from another site (Origin / Sec-Fetch-Site). Over HTTPS the
 * cookie is `__Host-toolshed_console`: a browser takes that name only from this host (Secure,
 * Path=/, no Domain), so a sibling subdomain cannot plant a session of its own (login CSRF by
 * cookie tossing); the plain name is then not read.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { ForbiddenError } from "../errors.js";
import type { ApiPort, ConsoleSession } from "../service/api-port.js";
import type { AppEnv } from "./context.js";

export const CONSOLE_COOKIE = "toolshed_console";
export const CSRF_HEADER = "x-csrf-token";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** `__Host-` over HTTPS (see above); the plain name over HTTP, where no prefix is accepted. */
const prefix = (c: Context) => (isHttps(c) ? "host" : undefined);

export function hasConsoleCookie(c: Context): boolean {
  return getCookie(c, CONSOLE_COOKIE, prefix(c)) !== undefined;
}

/** The session of the request's cookie (401 without one); CSRF-checked unless the method is safe. */
export async function consoleSession(
  c: Context<AppEnv>,
  port: Pick<ApiPort, "consoleSessions">,
): Promise<ConsoleSession> {
  const session = await port.consoleSessions.resume(getCookie(c, CONSOLE_COOKIE, prefix(c)));
  if (!SAFE_METHODS.has(c.req.method)) {
    refuseCrossSite(c);
    if (!port.consoleSessions.csrfMatches(session, c.req.header(CSRF_HEADER))) {
      throw new ForbiddenError(
        `missing or wrong ${CSRF_HEADER} header: send the csrfToken of GET /console/session with every change`,
      );
    }
  }
  return session;
}

/**
 * A browser names the page's origin; one of another site never changes anything with our cookie
 * (nor signs a browser in: no login CSRF).
 */
export function refuseCrossSite(c: Context<AppEnv>): void {
  if (c.req.header("sec-fetch-site") === "cross-site") {
    throw new ForbiddenError("a cross-site request may not change anything with the console's cookie");
  }
  const origin = c.req.header("origin");
  if (origin === undefined) return;
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  // Behind a proxy that rewrites Host, PUBLIC_URL is the one origin (scheme and port too).
  const expected = c.get("publicOrigin");
  const same = expected ? parsed?.origin === expected : parsed?.host === c.req.header("host");
  if (!same) {
    const hint = expected
      ? `only ${expected} (PUBLIC_URL) may`
      : `only this server's Host (${c.req.header("host") ?? "none"}) may; behind a proxy that rewrites Host, set PUBLIC_URL to the URL browsers use`;
    throw new ForbiddenError(
      `requests from origin ${origin} may not change anything with the console's cookie: ${hint}`,
    );
  }
}

export function setConsoleCookie(c: Context, session: ConsoleSession): void {
  setCookie(c, CONSOLE_COOKIE, session.token, {
    httpOnly: true,
    sameSite: "Strict",
    secure: isHttps(c),
    prefix: prefix(c),
    path: "/",
    expires: new Date(session.expiresAt),
  });
}

export function clearConsoleCookie(c: Context): void {
  deleteCookie(c, CONSOLE_COOKIE, { path: "/", secure: isHttps(c), prefix: prefix(c) });
}

/** Behind a TLS-terminating proxy the scheme arrives in X-Forwarded-Proto. */
function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
}
