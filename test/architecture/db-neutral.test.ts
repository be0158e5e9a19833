/**
 * The service and the jobs run on SQLite or Postgres through one `Db` handle (src/db/db.ts), so
 * their sources may use nothing that only SQLite has: a value import of the SQLite tables or
 * opener (tables come from `tablesOf(db)`), better-sqlite3's synchronous executors (`.all()`,
 * `.get()`, `.run()`, `.values()`), or SQLite-only SQL (`rowid`, `json_extract`, `datetime(`,
 * `ifnull(`, a bare `count(*)`, which Postgres returns as a string). Each of these type-checks
 * on the handle's SQLite type and fails only at run time on Postgres, hence a scan.
 *
 * NOT_YET_CONVERTED lists the files still being converted; empty it once the conversion is
 * merged and this guard holds for every file.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SCANNED = ["src/service", "src/jobs"];

/** Files that still use SQLite-only calls while the conversion is in flight (see the header). */
const NOT_YET_CONVERTED: readonly string[] = [];

interface Finding {
  line: number;
  what: string;
}

/** Comments out, strings' length kept, so a comment naming `rowid` does not count. */
function withoutComments(src: string): string {
  return src
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/[^\n]*/g, (m, pre: string) => pre + " ".repeat(m.length - pre.length));
}

const TABLE_MODULE = /\/db\/(schema(-[\w-]+)?|open)\.js$/;
/** A Drizzle builder step: a `.values()` after one of these on the same statement is SQLite's executor. */
const BUILDER_STEP =
  /\.(select|selectDistinct|from|where|update|insert|delete|set|returning|orderBy|limit|groupBy|innerJoin|leftJoin)\(/;

function sqliteOnlyUses(source: string): Finding[] {
  const code = withoutComments(source);
  const found: Finding[] = [];
  const lineAt = (i: number) => code.slice(0, i).split("\n").length;
  // Static imports and re-exports: a value import is one not marked `type` as a whole or per name.
  const importRe = /\b(import|export)\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/g;
  for (const m of code.matchAll(importRe)) {
    const [, , wholeType, clause = "", spec = ""] = m;
    if (!TABLE_MODULE.test(spec) || wholeType) continue;
    const named = /^\{([\s\S]*)\}$/.exec(clause.trim());
    const names = named
      ? named[1]!
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : [clause];
    if (names.every((n) => n.startsWith("type "))) continue;
    found.push({ line: lineAt(m.index), what: `value import of ${spec}` });
  }
  for (const m of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) {
    if (TABLE_MODULE.test(m[1]!)) found.push({ line: lineAt(m.index), what: `dynamic import of ${m[1]}` });
  }
  for (const m of code.matchAll(/\.(all|get|run|values)\(\s*\)/g)) {
    if (m[1] === "values") {
      // `map.values()` is fine; a `.values()` ending a query chain is SQLite's executor.
      const start = Math.max(code.lastIndexOf(";", m.index), code.lastIndexOf("{\n", m.index));
      if (!BUILDER_STEP.test(code.slice(start, m.index))) continue;
    }
    found.push({
      line: lineAt(m.index),
      what: `.${m[1]}() (SQLite's synchronous executor: await the builder)`,
    });
  }
  const sqlOnly: [RegExp, string][] = [
    [/\browid\b/gi, "rowid"],
    [/\bjson_extract\s*\(/gi, "json_extract("],
    [/\bdatetime\s*\(/gi, "datetime("],
    [/\bifnull\s*\(/gi, "ifnull( (use coalesce)"],
    [/\bcount\(\*\)/gi, "count(*) (a string on Postgres: use drizzle's count())"],
  ];
  for (const [re, what] of sqlOnly) {
    for (const m of code.matchAll(re)) found.push({ line: lineAt(m.index), what });
  }
  return found.sort((a, b) => a.line - b.line);
}

function sources(): string[] {
  return SCANNED.flatMap((dir) =>
    (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
      .filter((f) => f.endsWith(".ts"))
      .map((f) =>
        relative(ROOT, join(ROOT, dir, f))
          .split("\\")
          .join("/"),
      ),
  ).sort();
}

describe("service and jobs sources use only what both dialects have", () => {
  const files = sources();
  it("scans the service and the jobs", () => {
    expect(files.length).toBeGreaterThan(30);
  });
  for (const file of files) {
    const pending = NOT_YET_CONVERTED.includes(file);
    (pending ? it.skip : it)(file, () => {
      const found = sqliteOnlyUses(readFileSync(join(ROOT, file), "utf8"));
      expect(found.map((f) => `${file}:${f.line} ${f.what}`)).toEqual([]);
    });
  }
});

describe("the scan", () => {
  it("finds each SQLite-only use", () => {
    const src = [
      'import { jobs } from "../../db/schema.js";',
      'import { type Tables, sessions } from "../db/schema-tools.js";',
      'import { openDb } from "../../db/open.js";',
      "const row = db.select().from(jobs).where(eq(jobs.id, id)).get();",
      "const rows = db.select().from(jobs).all();",
      "db.update(jobs).set({ status }).run();",
      "const v = db.select({ a: jobs.id }).from(jobs).values();",
      "db.select().from(jobs).orderBy(desc(sql`rowid`));",
      "sql`json_extract(input, '$.x')`;",
      "sql`datetime('now')`;",
      "sql`ifnull(seq, 0)`;",
      "sql<number>`count(*)`;",
    ].join("\n");
    expect(sqliteOnlyUses(src).map((f) => f.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it("leaves what both dialects have alone", () => {
    const src = [
      'import type { Db } from "../../db/db.js";',
      'import type { JobRow } from "../../db/schema.js";',
      'import { type JobRow, type SessionRow } from "../../db/schema.js";',
      'import { first, tablesOf } from "../../db/db.js";',
      "const { jobs } = tablesOf(db);",
      "const row = await first(db.select().from(jobs).where(eq(jobs.id, id)).limit(1));",
      "await db.update(jobs).set({ status }).where(eq(jobs.id, id));",
      "for (const s of this.byId.values()) s.close();",
      "const x = map.get(key); await Promise.all(ps);",
      "// the rowid order of SQLite is not used: datetime( is gone",
      "/* json_extract( was here */",
      "const u = 'http://x'; // rowid",
    ].join("\n");
    expect(sqliteOnlyUses(src)).toEqual([]);
  });
});
