/**
 * The web console at `/console`: a static single page (src/console/ui, Preact + htm served as
 * plain ES modules, no build step) that calls the `/v1` API with a session cookie. This file
 * serves the page and its assets and exchanges an admin key for that cookie; the API's own auth
 * (api/auth.ts) accepts the cookie and checks CSRF.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import type { ApiDeps } from "../api/api-deps.js";
import type { AppEnv } from "../api/context.js";
import {
  clearConsoleCookie,
  consoleSession,
  refuseCrossSite,
  setConsoleCookie,
} from "../api/cookie-session.js";
import { NotFoundError, PayloadTooLargeError, ValidationError } from "../errors.js";
import type { ApiPort } from "../service/api-port.js";
import { StaticFiles } from "./static-files.js";

const UI_DIR = join(dirname(fileURLToPath(import.meta.url)), "ui");
const require = createRequire(import.meta.url);
/** The vendored libraries, served from their npm packages: bare `preact` imports point at our copy. */
const VENDOR: Record<string, { file: string; rewrite?: boolean }> = {
  "preact.mjs": { file: require.resolve("preact") },
  "hooks.mjs": { file: require.resolve("preact/hooks"), rewrite: true },
  // htm's `import` condition file, beside the CommonJS one `require` finds.
  "htm.mjs": { file: join(dirname(require.resolve("htm")), "htm.mjs") },
};

const SignIn = z.strictObject({ key: z.string().min(1).max(512) });

/**
 * Pages are this origin's scripts and styles only (no inline script, no CDN), never framed, and
 * talk only to this origin.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

export function consoleRoutes(app: Hono<AppEnv>, deps: ApiDeps): void {
  const files = new StaticFiles(UI_DIR, VENDOR, "/console/assets/vendor/");
  const secure = (c: Context) => {
    c.header("content-security-policy", CSP);
    c.header("x-content-type-options", "nosniff");
    c.header("referrer-policy", "no-referrer");
    c.header("cache-control", "no-store");
  };

  app.use(
    "/console/session",
    bodyLimit({
      maxSize: 4096,
      onError: () => {
        throw new PayloadTooLargeError(4096);
      },
    }),
  );
  // Who is signed in, and the CSRF token the page sends back with every change.
  app.get("/console/session", async (c) => {
    secure(c);
    return c.json(view(await consoleSession(c, deps.port)), 200);
  });
  // The key is read once, exchanged for the cookie and forgotten: it is never stored or logged.
  app.post("/console/session", async (c) => {
    secure(c);
    refuseCrossSite(c);
    const parsed = SignIn.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      throw new ValidationError('send {"key": "<a tenant_admin or admin key>"} as JSON', [
        { path: "key", message: "required: a tenant_admin or platform admin API key" },
      ]);
    }
    const session = await deps.port.consoleSessions.signIn(parsed.data.key);
    setConsoleCookie(c, session);
    return c.json(view(session), 200);
  });
  app.delete("/console/session", async (c) => {
    secure(c);
    // Ended on the server too: a copy of the cookie is refused from now on.
    await deps.port.consoleSessions.signOut(await consoleSession(c, deps.port));
    clearConsoleCookie(c);
    return c.body(null, 204);
  });

  app.get("/console/assets/*", async (c) => {
    const file = await files.read(c.req.path.slice("/console/assets/".length));
    if (!file) throw new NotFoundError("console asset", c.req.path);
    secure(c);
    c.header("content-type", file.type);
    return c.body(file.body, 200);
  });
  // Every other console path is the single page: it routes on the client.
  const page = async (c: Context) => {
    secure(c);
    const file = await files.read("index.html");
    return c.html(file?.body ?? "", 200);
  };
  app.get("/console", page);
  app.get("/console/*", page);
}

/** What the page may know of its session: never the cookie's value. */
function view(s: Awaited<ReturnType<ApiPort["consoleSessions"]["resume"]>>) {
  return {
    keyId: s.principal.keyId,
    role: s.principal.role,
    tenantId: s.principal.tenantId,
    csrfToken: s.csrfToken,
    expiresAt: s.expiresAt,
  };
}
