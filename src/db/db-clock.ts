/**
 * The database's clock, for the decisions that end or delete other hosts' rows (approval expiry,
 * retention cutoffs): with several hosts on one Postgres, a host's own clock N minutes ahead
 * would decide N minutes early for all of them. Both give ISO-8601 UTC text with milliseconds,
 * the format every stored timestamp has (`toISOString()`), so they compare with stored text as is.
 * SQLite is one machine (its clock is the host's); it uses its own `now` all the same, so that
 * both dialects take one path.
 */
import { type SQL, sql } from "drizzle-orm";
import { type Db, dialectOf } from "./db.js";

// `statement_timestamp()`: the start of the statement (not of its transaction, like `now()`),
// and stable within it, so that a filter on it still uses an index.
const PG_NOW = sql<string>`to_char(statement_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const SQLITE_NOW = sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/** The database's "now" as an SQL expression (ISO text), to compare with inside a statement. */
export function dbNowSql(db: Db): SQL<string> {
  return dialectOf(db) === "pg" ? PG_NOW : SQLITE_NOW;
}

/** The database's "now", read in one statement (once per pass of a sweep, not per row). */
export async function dbNow(db: Db): Promise<Date> {
  const query = sql`select ${dbNowSql(db)} as now`;
  if (dialectOf(db) === "pg") {
    const pg = db as unknown as { execute(q: SQL): Promise<{ rows: { now: string }[] }> };
    return new Date((await pg.execute(query)).rows[0]!.now);
  }
  return new Date(db.get<{ now: string }>(query).now);
}
