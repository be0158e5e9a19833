/** One session row by id, the lookup behind every call, listing and MCP request of a session. */
import { eq } from "drizzle-orm";
import { type Db, dialectOf, first, tablesOf } from "../../db/db.js";
import { preparedFor, sessionWithRulesQuery } from "../../db/prepared.js";
import type { RuleStrings, SessionRow } from "../../db/rows.js";

/**
 * The session's row (any status), or undefined. On SQLite it goes through the prepared
 * statement (building the SQL per call was the largest CPU cost of a call there); prepared.ts
 * holds SQLite statements only, so Postgres runs the builder (node-postgres sends it as one query).
 */
export async function sessionById(db: Db, id: string): Promise<SessionRow | undefined> {
  if (dialectOf(db) === "sqlite") return preparedFor(db).sessionById.get({ id });
  const { sessions } = tablesOf(db);
  return first(db.select().from(sessions).where(eq(sessions.id, id)).limit(1));
}

/** A session row with its tenant's rules as stored (null: none), in one read. */
export type SessionWithRules = SessionRow & { tenantRules: RuleStrings | null };

/**
 * The session's row and its tenant's rules (one read: the call's decision needs both), or
 * undefined. Prepared on SQLite; Postgres runs the same query built (one round trip).
 */
export async function sessionWithRules(db: Db, id: string): Promise<SessionWithRules | undefined> {
  if (dialectOf(db) === "sqlite") return preparedFor(db).sessionWithRules.get({ id });
  return first(sessionWithRulesQuery(db, id).limit(1));
}
