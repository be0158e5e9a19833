/**
 * Keyset pagination shared by the list verbs: newest first by `createdAt`, then `id`, so a page
 * boundary is stable while rows are added. The cursor is opaque to callers (base64url JSON of the
 * last row's position); a cursor that does not decode is a 400 on `cursor`.
 */
import { and, desc, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/db.js";
import { ValidationError } from "../errors.js";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export interface PageQuery {
  limit?: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

interface Position {
  createdAt: string;
  id: string;
}

export function encodeCursor(pos: Position): string {
  return Buffer.from(JSON.stringify([pos.createdAt, pos.id])).toString("base64url");
}

export function decodeCursor(cursor: string): Position {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "string")
      return { createdAt: v[0], id: v[1] };
  } catch {}
  throw new ValidationError("invalid cursor", [
    {
      path: "cursor",
      message: "not a cursor from this list: pass `nextCursor` of the previous page as it is",
    },
  ]);
}

/** The columns a table is paged by. */
export interface PageColumns {
  createdAt: SQLiteColumn;
  id: SQLiteColumn;
}

/**
 * One page of `table`'s rows matching every condition of `where` (undefined ones are skipped),
 * after the cursor, newest first, each turned into its API view. `table` comes from the handle
 * (`tablesOf(db)`), so each dialect reads its own columns.
 */
export async function selectPage<T extends SQLiteTable & PageColumns, V>(
  db: Db,
  table: T,
  where: (SQL | undefined)[],
  q: PageQuery,
  view: (row: T["$inferSelect"]) => V,
): Promise<Page<V>> {
  const { after, order } = keyset(table, q);
  const rows = (await db
    .select()
    .from(table as SQLiteTable)
    .where(and(...where, after))
    .orderBy(...order)
    .limit(fetchSize(q))) as (T["$inferSelect"] & Position)[];
  return toPage(rows, q, view);
}

/** The condition "after the cursor" (or nothing) and the order, for `where` and `orderBy`. */
function keyset(cols: PageColumns, q: PageQuery): { after: SQL | undefined; order: SQL[] } {
  const order = [desc(cols.createdAt), desc(cols.id)];
  if (!q.cursor) return { after: undefined, order };
  const pos = decodeCursor(q.cursor);
  // A row value (both dialects): the (…, created_at, id) index is sought straight to the position.
  return { after: sql`(${cols.createdAt}, ${cols.id}) < (${pos.createdAt}, ${pos.id})`, order };
}

/** How many rows to fetch: one more than the page, to know whether another page follows. */
function fetchSize(q: PageQuery): number {
  return Math.min(Math.max(q.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT) + 1;
}

/** Cuts the extra row off and makes the cursor of the next page from the last row kept. */
function toPage<R extends Position, T>(rows: R[], q: PageQuery, view: (r: R) => T): Page<T> {
  const size = fetchSize(q) - 1;
  const kept = rows.slice(0, size);
  const last = kept.at(-1);
  return {
    items: kept.map(view),
    nextCursor: rows.length > size && last ? encodeCursor(last) : null,
  };
}
