/**
 * The rows recovery and the reconciler compare with the queue, on SQLite and on Postgres: which
 * jobs expect a run, walked in id order in batches, and which of them this worker is not running
 * itself (its attempts are JSON on both dialects). Postgres comes from scripts/postgres.sh;
 * outside CI its half skips when it cannot be started on this machine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Db, tablesOf } from "../../../src/db/db.js";
import { openPg } from "../../../src/db/pg/open-pg.js";
import type { JobRow, JobStatus } from "../../../src/db/rows.js";
import { newJobRow } from "../../../src/service/calls/job-row.js";
import {
  expectingRunElsewhere,
  jobsExpectingRun,
  jobsExpectingRunAfter,
} from "../../../src/service/worker/recovery.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../../support/postgres.js";
import { openTestDb } from "../../support/test-db.js";

const ME = "host-a/1/me";
let n = 0;

/** Seeds a session with a job per status (ids in order) and returns the ids by name. */
async function seed(db: Db) {
  const { tenants, sessions, jobs } = tablesOf(db);
  n++;
  const now = new Date().toISOString();
  const tenantId = `ten_r${n}`;
  const sessionId = `ses_r${n}`;
  await db.insert(tenants).values({ id: tenantId, name: tenantId, createdAt: now });
  await db.insert(sessions).values({
    id: sessionId,
    tenantId,
    mode: "default",
    cwd: "/workspace",
    home: "/home/agent",
    workingDirectories: [],
    rules: { allow: [], deny: [], ask: [] },
    status: "active",
    createdAt: now,
    lastUsedAt: now,
  });
  const row = (id: string, status: JobStatus, worker?: string, ended = false): JobRow =>
    newJobRow({
      id: `job_r${n}${id}`,
      tenantId,
      sessionId,
      tool: "Read",
      input: { file_path: "/workspace/x" },
      status,
      decision: {
        behavior: "allow",
        message: "",
        reason: null,
        mode: "default",
        bypassImmune: false,
        suggestions: [],
        decidedBy: "rule",
      },
      concurrencySafe: true,
      ...(worker ? { attempts: [{ n: 1, worker, startedAt: now, ...(ended ? { endedAt: now } : {}) }] } : {}),
    });
  const rows = {
    queued: row("a", "queued"),
    mine: row("b", "running", ME),
    other: row("c", "running", "host-b/2/other"),
    done: row("d", "succeeded", ME, true),
    mineEnded: row("e", "running", ME, true),
    queued2: row("f", "queued"),
  };
  await db.insert(jobs).values(Object.values(rows));
  return Object.fromEntries(Object.entries(rows).map(([k, r]) => [k, r.id])) as Record<
    keyof typeof rows,
    string
  >;
}

function recoveryContract(open: () => Promise<{ db: Db; close(): Promise<void> }>) {
  let opened: { db: Db; close(): Promise<void> };
  beforeEach(async () => {
    opened = await open();
  });
  afterEach(async () => {
    await opened.close();
  });

  it("lists the jobs that expect a run, whole or in id-ordered batches", async () => {
    const ids = await seed(opened.db);
    const expecting = [ids.queued, ids.mine, ids.other, ids.mineEnded, ids.queued2];
    expect((await jobsExpectingRun(opened.db)).sort()).toEqual(expecting);
    const walked: string[] = [];
    let cursor = "";
    for (;;) {
      const batch = await jobsExpectingRunAfter(opened.db, cursor, 2);
      walked.push(...batch);
      if (batch.length < 2) break;
      cursor = batch.at(-1)!;
    }
    expect(walked).toEqual(expecting);
  });

  it("leaves out what this worker runs now, and what no longer expects a run", async () => {
    const ids = await seed(opened.db);
    const all = Object.values(ids);
    expect((await expectingRunElsewhere(opened.db, all, ME)).sort()).toEqual([
      ids.queued,
      ids.other,
      ids.mineEnded,
      ids.queued2,
    ]);
    expect(await expectingRunElsewhere(opened.db, [], ME)).toEqual([]);
  });
}

describe("recovery rows on SQLite", () => {
  recoveryContract(async () => {
    const dir = mkdtempSync(join(tmpdir(), "tst-rec-"));
    const { db, close } = openTestDb(join(dir, "t.db"));
    return {
      db,
      async close() {
        close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

const server = localPostgresUrl();

// CI must run it: there, a Postgres that did not start fails the file instead of skipping it.
describe.skipIf(!server && !process.env.CI)("recovery rows on Postgres", () => {
  let dbUrl: string;
  beforeAll(async () => {
    dbUrl = await freshDatabase(server!);
  });
  afterAll(async () => {
    if (dbUrl) await dropDatabase(server!, dbUrl);
  });
  recoveryContract(async () => {
    const pg = await openPg(dbUrl, { max: 2 });
    // Each test looks at its own rows only: the file's tests share the database.
    await pg.pool.query("delete from audit; delete from jobs");
    return { db: pg.db as unknown as Db, close: pg.close };
  });
});
