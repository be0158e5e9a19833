/**
 * A job's finish (and a cancel's flag) whose commit fails must throw, never come back as stored.
 * SQLite commits an `UPDATE … RETURNING` when the statement ends, after its first row; a disk
 * that fills then (SQLITE_FULL) rolls the write back. Here a deferred foreign key, checked at that
 * same commit, makes the commit fail on purpose (a temporary trigger adds a row that breaks it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { OpenedDb } from "../../src/db/open.js";
import { jobs } from "../../src/db/schema.js";
import { SqliteJobStore } from "../../src/db/stores/sqlite-job-store.js";
import { seedDialectSession } from "../support/dialects.js";
import { jobRow } from "../support/rows.js";
import { openTestDb } from "../support/test-db.js";

let dir: string;
let opened: OpenedDb;
let store: SqliteJobStore;
const jobId = "job_commitfails";

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "tsfc-"));
  opened = openTestDb(join(dir, "t.db"));
  store = new SqliteJobStore(opened.db);
  const { tenantId } = await seedDialectSession(opened.db, "ses_commitfails");
  await opened.db
    .insert(jobs)
    .values(jobRow({ id: jobId, tenantId, sessionId: "ses_commitfails", status: "running" }));
  for (const ddl of [
    "create temp table fc_parent (id text primary key)",
    "create temp table fc_child (p text references fc_parent(id) deferrable initially deferred)",
    "create temp trigger fc_break after update on jobs begin insert into fc_child values ('missing'); end",
  ])
    opened.db.run(sql.raw(ddl));
});

afterEach(() => {
  opened.close();
  rmSync(dir, { recursive: true, force: true });
});

it("a finish whose commit fails throws, and the row stays as it was", async () => {
  await expect(store.finish(jobId, "succeeded", { content: [], state: "success" })).rejects.toThrow(
    /FOREIGN KEY/,
  );
  expect((await store.findJob(jobId))?.status).toBe("running");
});

it("a cancel flag whose commit fails throws", async () => {
  await expect(store.requestCancel(jobId)).rejects.toThrow(/FOREIGN KEY/);
  expect((await store.findJob(jobId))?.cancelRequested).toBeFalsy();
});
