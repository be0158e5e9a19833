/** The DB opener: migrations applied, WAL, foreign keys and a busy timeout; reopening is idempotent. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openDb } from "../../src/db/open.js";
import { sessions } from "../../src/db/schema.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tsd-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it("applies the migrations with WAL, foreign keys and a busy timeout", () => {
  const file = join(dir, "nested", "t.db");
  openDb(file).close();
  const again = openDb(file);
  expect(() =>
    again.db
      .insert(sessions)
      .values({
        id: "ses_x",
        tenantId: "ten_missing",
        mode: "default",
        cwd: "/workspace",
        home: "/home/agent",
        workingDirectories: [],
        rules: { allow: [], deny: [], ask: [] },
        tools: null,
        status: "active",
        nextSeq: 1,
        createdAt: "",
        lastUsedAt: "",
      })
      .run(),
  ).toThrow(/FOREIGN KEY/);
  again.close();
  const raw = new Database(file);
  expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
  const tables = raw.prepare("select name from sqlite_master where type = 'table'").all() as {
    name: string;
  }[];
  expect(tables.map((t) => t.name)).toEqual(
    expect.arrayContaining([
      "tenants",
      "api_keys",
      "sessions",
      "tenant_rules",
      "jobs",
      "read_cache",
      "audit",
    ]),
  );
  raw.close();
});
