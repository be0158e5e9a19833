/**
 * The compiled statements (fast-prepared.ts) answer exactly as drizzle's own prepared queries
 * do: every hot statement is compiled (none silently kept on drizzle's path), and reads and
 * RETURNING rows, with their JSON and boolean columns, come back equal to drizzle's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { OpenedDb } from "../../src/db/open.js";
import { preparedFor } from "../../src/db/prepared.js";
import { jobs, sessions } from "../../src/db/schema.js";
import { jobStatementsFor } from "../../src/db/stores/sqlite-job-statements.js";
import { seedDialectSession } from "../support/dialects.js";
import { jobRow } from "../support/rows.js";
import { openTestDb } from "../support/test-db.js";

let opened: OpenedDb | undefined;
let dir: string | undefined;
afterEach(() => {
  opened?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** drizzle's own query behind a compiled one (its prototype). */
const drizzleOf = <T extends object>(q: T): T => Object.getPrototypeOf(q) as T;

async function seeded() {
  dir = mkdtempSync(join(tmpdir(), "tsfp-"));
  opened = openTestDb(join(dir, "t.db"));
  const { db } = opened;
  const { tenantId } = await seedDialectSession(db, "ses_fp");
  const row = (id: string, seq: number) =>
    jobRow({
      id,
      tenantId,
      sessionId: "ses_fp",
      status: "running",
      seq,
      runs: 1,
      attempts: [{ worker: "w1", startedAt: "2026-01-01T00:00:00.000Z" }] as never,
      input: { command: "echo hi", nested: { a: [1, 2] } },
    });
  db.insert(jobs)
    .values([row("job_a", 1), row("job_b", 2), row("job_c", 3)])
    .run();
  db.update(sessions).set({ nextSeq: 4 }).where(eq(sessions.id, "ses_fp")).run();
  return { db, tenantId };
}

describe("fastPrepared", () => {
  it("compiles every statement of a call's path", async () => {
    const { db } = await seeded();
    for (const set of [preparedFor(db), jobStatementsFor(db)])
      for (const [name, q] of Object.entries(set)) {
        expect(Object.hasOwn(q, "get"), name).toBe(true);
        expect(q.get, name).not.toBe(drizzleOf(q).get);
      }
  });

  it("reads rows as drizzle does (JSON, booleans, absent rows)", async () => {
    const { db, tenantId } = await seeded();
    const p = preparedFor(db);
    const s = jobStatementsFor(db);
    type Values = Record<string, unknown>;
    const reads: [{ get(v: Values): unknown; all(v: Values): unknown }, Values][] = [
      [p.jobById, { id: "job_b" }],
      [p.jobById, { id: "job_none" }],
      [p.sessionById, { id: "ses_fp" }],
      [p.activeCount, { tenantId }],
      [p.tenantRules, { tenantId }],
      [s.blockedByAny, { sessionId: "ses_fp", seq: 3 }],
      [s.busyOrFull, { sessionId: "ses_fp", seq: 2, tenantId, maxActive: 10 }],
      [s.queuedAfter, { sessionId: "ses_fp", seq: 0, limit: 5 }],
    ];
    for (const [q, values] of reads) {
      expect(q.get(values)).toEqual(drizzleOf(q).get(values));
      expect(q.all(values)).toEqual(drizzleOf(q).all(values));
    }
    expect(p.jobById.get({ id: "job_b" })?.input).toEqual({ command: "echo hi", nested: { a: [1, 2] } });
  });

  it("returns a finish's row as drizzle does, and writes it alike", async () => {
    const { db } = await seeded();
    const finish = jobStatementsFor(db).finish;
    const args = (id: string) => ({
      id,
      status: "succeeded",
      cancelWins: 0,
      result: { content: [{ type: "text", text: "hi\n" }], isError: false },
      now: "2026-01-01T00:00:01.000Z",
      error: null,
      run: 1,
    });
    const [fast] = finish.all(args("job_a"));
    const [slow] = drizzleOf(finish).all(args("job_b"));
    expect(fast).toEqual({ ...slow, id: "job_a", seq: 1 });
    expect(fast?.laterCalls).toBe(true);
    // The last call of the session: no later one to wake (the boolean column, decoded).
    expect(finish.all(args("job_c"))[0]?.laterCalls).toBe(false);
    expect(fast?.attempts?.[0]?.outcome).toBe("succeeded");
    // A placeholder without a value is refused, as drizzle refuses it.
    expect(() => finish.all({ id: "job_a" } as never)).toThrow(/No value for placeholder/);
  });
});
