/**
 * The Postgres schema (src/db/pg) is a hand-kept twin of the SQLite one (src/db): verbs take
 * their tables from the handle (`tablesOf(db)`) under the SQLite names and row types, so a table,
 * a column, a property name, a nullability or a kind that differs between the two would read or
 * write one dialect wrongly while type-checking cleanly. This compares them column by column.
 */
import { type Column, getTableColumns, is, type Table } from "drizzle-orm";
import { PgTable, getTableConfig as pgTableConfig } from "drizzle-orm/pg-core";
import { SQLiteTable, getTableConfig as sqliteTableConfig } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as pgSchema from "../../src/db/pg/schema.js";
import * as sqliteSchema from "../../src/db/schema.js";

/** What a column holds, in words both dialects share (the pairs the twin is written with). */
const KIND: Record<string, string> = {
  SQLiteText: "text",
  PgText: "text",
  SQLiteTextJson: "json",
  SQLiteBlobJson: "json",
  PgJsonb: "json",
  PgJson: "json",
  SQLiteBoolean: "boolean",
  PgBoolean: "boolean",
  SQLiteInteger: "integer",
  PgInteger: "integer",
  PgBigInt53: "integer",
  SQLiteReal: "real",
  PgDoublePrecision: "real",
  SQLiteBlobBuffer: "bytes",
  PgBytea: "bytes",
};

interface ColumnShape {
  property: string;
  column: string;
  notNull: boolean;
  kind: string;
}

function kindOf(c: Column): string {
  // Drizzle 0.45 has no bytea column: the Postgres twin declares it as a custom type.
  if (c.columnType === "PgCustomColumn" && c.getSQLType() === "bytea") return "bytes";
  return KIND[c.columnType] ?? `unmapped ${c.columnType} (add it to KIND in this test)`;
}

/** Every table a schema module exports, by SQL name: its columns by property name. */
function tablesIn(
  mod: Record<string, unknown>,
  isTable: (v: unknown) => boolean,
  sqlName: (t: Table) => string,
): Map<string, { exportName: string; columns: ColumnShape[] }> {
  const out = new Map<string, { exportName: string; columns: ColumnShape[] }>();
  for (const [exportName, v] of Object.entries(mod)) {
    if (!isTable(v)) continue;
    const table = v as Table;
    const columns = Object.entries(getTableColumns(table))
      .map(([property, c]) => ({ property, column: c.name, notNull: c.notNull, kind: kindOf(c) }))
      .sort((a, b) => a.property.localeCompare(b.property));
    out.set(sqlName(table), { exportName, columns });
  }
  return out;
}

const sqlite = tablesIn(
  sqliteSchema,
  (v) => is(v, SQLiteTable),
  (t) => sqliteTableConfig(t as SQLiteTable).name,
);
const pg = tablesIn(
  pgSchema,
  (v) => is(v, PgTable),
  (t) => pgTableConfig(t as PgTable).name,
);

it("both dialects export the same tables under the same names", () => {
  const names = (m: typeof sqlite) => [...m].map(([sql, t]) => `${t.exportName} (${sql})`).sort();
  expect(names(pg)).toEqual(names(sqlite));
  expect(sqlite.size).toBeGreaterThan(10);
});

describe.each([...sqlite.keys()].sort())("table %s", (name) => {
  it("has the same columns, property names, nullability and kinds on Postgres", () => {
    const twin = pg.get(name);
    expect(twin, `src/db/pg has no table "${name}"`).toBeDefined();
    expect(twin!.columns).toEqual(sqlite.get(name)!.columns);
    for (const c of twin!.columns) expect(c.kind).not.toMatch(/^unmapped/);
  });
});

it("tells a differing column apart (the comparison is not vacuous)", () => {
  const jobs = sqlite.get("jobs")!.columns;
  const flipped = jobs.map((c) => (c.property === "hostId" ? { ...c, notNull: !c.notNull } : c));
  expect(flipped).not.toEqual(pg.get("jobs")!.columns);
  expect(jobs.find((c) => c.property === "input")?.kind).toBe("json");
  expect(pg.get("jobs")!.columns.find((c) => c.property === "concurrencySafe")?.kind).toBe("boolean");
});
