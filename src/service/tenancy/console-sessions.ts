/**
 * Web console sign-in: an admin key is exchanged once for a signed session token (kept by the
 * browser in an HttpOnly cookie), so the key itself never stays in the browser. The token names
 * the key id, an expiry and a random nonce, under an HMAC with a server secret; every use re-reads
 * the key, so revoking the key ends the session, and skips a session signed out (its nonce is
 * kept in `console_signouts` until the session would have expired). The CSRF token is derived
 * from the nonce: only a page that could read the session's own answer knows it.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { and, eq, lt, notExists, sql } from "drizzle-orm";
import { type Db, first, tablesOf } from "../../db/db.js";
import { ForbiddenError, UnauthenticatedError } from "../../errors.js";
import { authenticate } from "./api-keys.js";
import type { Principal } from "./principal.js";

export const CONSOLE_SESSION_MS = 8 * 60 * 60 * 1000;
/**
 * How long a sign-out is kept past its cookie's expiry. The expiry is checked by each API host's
 * own clock (no database read for it): a host behind the one that forgets the sign-out by N
 * would take the signed-out cookie again for N. An hour covers any clock that is still in use.
 */
export const SIGNOUT_KEPT_PAST_EXPIRY_MS = 60 * 60 * 1000;

export interface ConsoleSession {
  /** The cookie's value: opaque to the browser, not the key. */
  token: string;
  /** Sent back in the `x-csrf-token` header of every state-changing request. */
  csrfToken: string;
  principal: Principal;
  expiresAt: string;
}

interface TokenBody {
  /** key id */
  k: string;
  /** expiry, epoch ms */
  e: number;
  /** nonce */
  n: string;
}

export class ConsoleSessions {
  constructor(
    private readonly db: Db,
    private readonly secret: Buffer,
    private readonly ttlMs = CONSOLE_SESSION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Checks the key (401 unknown, 403 an agent key) and opens a session for it. */
  async signIn(key: string | undefined): Promise<ConsoleSession> {
    const principal = await authenticate({ db: this.db }, key);
    if (principal.role === "agent") {
      throw new ForbiddenError("the console needs a tenant_admin or platform admin key, not an agent key");
    }
    const body: TokenBody = {
      k: principal.keyId,
      e: this.now() + this.ttlMs,
      n: randomBytes(16).toString("base64url"),
    };
    const payload = Buffer.from(JSON.stringify(body)).toString("base64url");
    return this.session(`${payload}.${this.mac(`s.${payload}`)}`, body, principal);
  }

  /** The session behind a cookie; 401 when absent, forged, expired, signed out or its key was revoked. */
  async resume(token: string | undefined): Promise<ConsoleSession> {
    const body = token ? this.verify(token) : undefined;
    if (!token || !body)
      throw new UnauthenticatedError("not signed in to the console (or the session ended)");
    if (body.e <= this.now()) throw new UnauthenticatedError("the console session expired: sign in again");
    const { apiKeys, consoleSignouts } = tablesOf(this.db);
    // One query: the live key, unless this session was signed out.
    const row = await first(
      this.db
        .select({
          id: apiKeys.id,
          role: apiKeys.role,
          tenantId: apiKeys.tenantId,
          live: sql<number>`${apiKeys.revokedAt} is null`.mapWith(Boolean),
        })
        .from(apiKeys)
        .where(
          and(
            eq(apiKeys.id, body.k),
            notExists(
              this.db.select({ one: sql`1` }).from(consoleSignouts).where(eq(consoleSignouts.nonce, body.n)),
            ),
          ),
        )
        .limit(1),
    );
    if (!row) throw new UnauthenticatedError("this console session was signed out: sign in again");
    if (!row.live)
      throw new UnauthenticatedError("the key of this console session was revoked: sign in again");
    return this.session(token, body, { keyId: row.id, role: row.role, tenantId: row.tenantId });
  }

  /**
   * Ends a session for good: its cookie, replayed later (a copy kept by another program, a shared
   * computer), is refused like a forged one. Ended sessions an hour past their expiry (clock skew
   * between hosts: SIGNOUT_KEPT_PAST_EXPIRY_MS) are forgotten here.
   */
  async signOut(session: ConsoleSession): Promise<void> {
    const body = this.verify(session.token);
    if (!body) return;
    const { consoleSignouts } = tablesOf(this.db);
    await this.db
      .insert(consoleSignouts)
      .values({ nonce: body.n, expiresAt: new Date(body.e).toISOString() })
      .onConflictDoNothing();
    await this.db
      .delete(consoleSignouts)
      .where(lt(consoleSignouts.expiresAt, new Date(this.now() - SIGNOUT_KEPT_PAST_EXPIRY_MS).toISOString()));
  }

  /** Constant-time comparison of a presented CSRF token with the session's. */
  csrfMatches(session: ConsoleSession, presented: string | undefined): boolean {
    if (!presented) return false;
    const a = Buffer.from(presented);
    const b = Buffer.from(session.csrfToken);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private session(token: string, body: TokenBody, principal: Principal): ConsoleSession {
    return {
      token,
      csrfToken: this.mac(`c.${body.n}`),
      principal,
      expiresAt: new Date(body.e).toISOString(),
    };
  }

  private verify(token: string): TokenBody | undefined {
    const [payload, mac, ...rest] = token.split(".");
    if (!payload || !mac || rest.length > 0) return undefined;
    const expected = Buffer.from(this.mac(`s.${payload}`));
    const got = Buffer.from(mac);
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) return undefined;
    try {
      const body = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as TokenBody;
      return typeof body.k === "string" && typeof body.e === "number" && typeof body.n === "string"
        ? body
        : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(text: string): string {
    return createHmac("sha256", this.secret).update(text).digest("base64url");
  }
}
