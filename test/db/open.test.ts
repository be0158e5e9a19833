/**
 * The DB opener: migrations applied, WAL, foreign keys and a busy timeout; reopening is idempotent;
 * the service's connection checkpoints on a thread of its own.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openDb } from "../../src/db/open.js";
import { sessions } from "../../src/db/schema.js";
import { BACKSTOP_PAGES } from "../../src/db/wal-checkpointer.js";
import { pollUntil } from "../support/wait-for-job.js";

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

it("checkpoints the service's WAL on a thread of its own: no call's commit pays for it", async () => {
  const file = join(dir, "ckpt.db");
  const opened = openDb(file, { checkpointInBackground: true });
  const sqlite = (opened.db as unknown as { $client: Database.Database }).$client;
  // The writer's own automatic checkpoint is only a backstop far above what is written here.
  expect(sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(BACKSTOP_PAGES);
  sqlite.exec("create table blobs (b blob)");
  const insert = sqlite.prepare("insert into blobs values (?)");
  // ~1,500 pages: past SQLite's default threshold (1,000), below the backstop.
  for (let i = 0; i < 1500; i++) insert.run(Buffer.alloc(4000, i % 251));
  const pages = () => statSync(file).size / 4096;
  // The pages reach the database file only by a checkpoint: the thread's.
  await pollUntil(
    async () => pages(),
    (n) => n >= 1500,
    { timeoutMs: 10_000, what: "a background checkpoint" },
  );
  opened.close();
});

it("transactions begin immediately, commit, roll back on a throw or tx.rollback(), nest as savepoints, on one handle made once", () => {
  const opened = openDb(join(dir, "tx.db"));
  const { db } = opened;
  const sqlite = (db as unknown as { $client: Database.Database }).$client;
  sqlite.exec("create table t (v integer)");
  const values = () =>
    (sqlite.prepare("select v from t order by v").all() as { v: number }[]).map((r) => r.v);
  const insert = sqlite.prepare("insert into t values (?)");
  // Immediate: the write lock is held from BEGIN, before anything is written.
  const other = new Database(join(dir, "tx.db"));
  other.pragma("busy_timeout = 0");
  db.transaction(() => {
    expect(sqlite.inTransaction).toBe(true);
    expect(() => other.exec("BEGIN IMMEDIATE")).toThrow(/locked|busy/i);
  });
  other.close();
  expect(
    db.transaction(() => {
      insert.run(1);
      return "done";
    }),
  ).toBe("done");
  const failing = (v: number) => () => {
    insert.run(v);
    throw new Error(`boom ${v}`);
  };
  expect(() => db.transaction(failing(2))).toThrow("boom 2");
  expect(() =>
    db.transaction((tx) => {
      insert.run(3);
      tx.rollback();
    }),
  ).toThrow(/rollback/i);
  // A nested transaction (the handle's, or the database's again) is a savepoint: its throw
  // undoes only its own writes.
  db.transaction((tx) => {
    insert.run(4);
    expect(() => tx.transaction(failing(5))).toThrow("boom 5");
    expect(() => db.transaction(failing(6))).toThrow("boom 6");
  });
  expect(values()).toEqual([1, 4]);
  expect(sqlite.inTransaction).toBe(false);
  // The transaction handle (drizzle builds a query builder per table for each) is made once.
  const handles = new Set<unknown>();
  for (let i = 0; i < 3; i++) db.transaction((tx) => void handles.add(tx));
  expect(handles.size).toBe(1);
  opened.close();
});
