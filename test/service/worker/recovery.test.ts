/**
 * The rows recovery and the reconciler compare with the queue, on SQLite and on Postgres: which
 * jobs expect a run, walked in id order in batches, and which of them this worker is not running
 * itself (its attempts are JSON on both dialects).
 */
import { expect, it } from "vitest";
import { type Db, tablesOf } from "../../../src/db/db.js";
import type { JobRow, JobStatus } from "../../../src/db/rows.js";
import { newJobRow } from "../../../src/service/calls/job-row.js";
import {
  expectingRunElsewhere,
  jobsExpectingRun,
  jobsExpectingRunAfter,
} from "../../../src/service/worker/recovery.js";
import { describeDialects, seedDialectSession } from "../../support/dialects.js";
import { ALLOW_DECISION } from "../../support/rows.js";

const ME = "host-a/1/me";
let n = 0;

/** Seeds a session with a job per status (ids in order) and returns the ids by name. */
async function seed(db: Db) {
  const { jobs } = tablesOf(db);
  n++;
  const now = new Date().toISOString();
  const sessionId = `ses_r${n}`;
  const { tenantId } = await seedDialectSession(db, sessionId);
  const row = (id: string, status: JobStatus, worker?: string, ended = false): JobRow =>
    newJobRow({
      id: `job_r${n}${id}`,
      tenantId,
      sessionId,
      tool: "Read",
      input: { file_path: "/workspace/x" },
      status,
      decision: ALLOW_DECISION,
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

describeDialects(
  "recovery rows",
  (current) => {
    it("lists the jobs that expect a run, whole or in id-ordered batches", async () => {
      const ids = await seed(current().db);
      const expecting = [ids.queued, ids.mine, ids.other, ids.mineEnded, ids.queued2];
      expect((await jobsExpectingRun(current().db)).sort()).toEqual(expecting);
      const walked: string[] = [];
      let cursor = "";
      for (;;) {
        const batch = await jobsExpectingRunAfter(current().db, cursor, 2);
        walked.push(...batch);
        if (batch.length < 2) break;
        cursor = batch.at(-1)!;
      }
      expect(walked).toEqual(expecting);
    });

    it("leaves out what this worker runs now, and what no longer expects a run", async () => {
      const ids = await seed(current().db);
      const all = Object.values(ids);
      expect((await expectingRunElsewhere(current().db, all, ME)).sort()).toEqual([
        ids.queued,
        ids.other,
        ids.mineEnded,
        ids.queued2,
      ]);
      expect(await expectingRunElsewhere(current().db, [], ME)).toEqual([]);
    });

    it("queues again a job this worker's attempt names but that it no longer runs (it gave up)", async () => {
      const ids = await seed(current().db);
      const runsNow = (id: string) => id !== ids.mine;
      expect((await expectingRunElsewhere(current().db, [ids.mine, ids.other], ME, runsNow)).sort()).toEqual([
        ids.mine,
        ids.other,
      ]);
      expect(await expectingRunElsewhere(current().db, [ids.mine], ME, () => true)).toEqual([]);
    });
  },
  { resetSql: "delete from audit; delete from jobs" },
);
