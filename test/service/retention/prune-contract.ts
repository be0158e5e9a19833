/**
 * Retention, run on each dialect (prune.test.ts on SQLite, prune.pg.int.test.ts on Postgres):
 * what is and is not eligible, state by state; 0 keeps forever; walks that skip kept rows across
 * batches; another tenant untouched; two pruners at once (two hosts) delete each row once; a pass
 * that fails half-way leaves whole rows (each batch is one transaction) and the next one ends it.
 * Every timestamp is relative to one fixed `NOW`, so that a later test's pass (Postgres shares one
 * database per file) never reaches an earlier test's rows differently.
 */

import { and, eq, inArray } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { JOB_STATUSES, type JobStatus, TERMINAL } from "../../../src/contracts/job.js";
import { type Db, tablesOf } from "../../../src/db/db.js";
import {
  prunePass,
  type RetentionSettings,
  retentionSettings,
} from "../../../src/service/retention/pruner.js";
import { jobRow, sessionRow } from "../../support/rows.js";

export interface PruneFixture {
  /** Two handles on one database: two worker hosts. */
  a: Db;
  b: Db;
  close(): Promise<void>;
  /** Makes the next delete of `table`'s row `id` fail (a trigger); returns its removal. */
  failDeleteOf(table: "jobs" | "sessions", id: string): Promise<() => Promise<void>>;
}

const NOW = new Date("2031-06-01T00:00:00.000Z");
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000).toISOString();
/** The defaults, without pauses. */
const SETTINGS: RetentionSettings = { ...retentionSettings(loadConfig({})), pauseMs: 0, batch: 100 };
let n = 0;

export function pruneContract(dialect: string, open: () => Promise<PruneFixture>): void {
  describe(`retention (${dialect})`, () => {
    let f: PruneFixture;
    let ten: string;
    let other: string;

    beforeEach(async () => {
      f = await open();
      ten = `tena${process.pid}x${n++}`;
      other = `tenb${process.pid}x${n++}`;
      const { tenants } = tablesOf(f.a);
      await f.a.insert(tenants).values([
        { id: ten, name: "a", createdAt: daysAgo(999) },
        { id: other, name: "b", createdAt: daysAgo(999) },
      ]);
    });
    afterEach(() => f.close());

    async function session(name: string, status: "active" | "deleted", endedDaysAgo: number, tenantId = ten) {
      const { sessions } = tablesOf(f.a);
      const sid = `ses_${name}_${tenantId}`;
      await f.a.insert(sessions).values(
        sessionRow({
          id: sid,
          tenantId,
          status,
          createdAt: daysAgo(999),
          lastUsedAt: daysAgo(endedDaysAgo),
        }),
      );
      return sid;
    }

    async function job(
      name: string,
      sid: string,
      status: JobStatus,
      created: number,
      finished: number | null,
      tenantId = ten,
      extra: { idempotencyKey?: string } = {},
    ) {
      const { jobs } = tablesOf(f.a);
      const jid = `job_${name}_${tenantId}`;
      await f.a.insert(jobs).values(
        jobRow({
          id: jid,
          tenantId,
          sessionId: sid,
          status,
          createdAt: daysAgo(created),
          finishedAt: finished === null ? null : daysAgo(finished),
          result:
            finished === null
              ? null
              : { content: [{ type: "text", text: "x".repeat(2000) }], state: "success" },
          ...extra,
        }),
      );
      return jid;
    }

    const jobIds = async (tenantId = ten) => {
      const { jobs } = tablesOf(f.a);
      const rows = await f.a.select({ id: jobs.id }).from(jobs).where(eq(jobs.tenantId, tenantId));
      return rows.map((r) => r.id).sort();
    };
    const sessionIds = async (tenantId = ten) => {
      const { sessions } = tablesOf(f.a);
      const rows = await f.a
        .select({ id: sessions.id })
        .from(sessions)
        .where(eq(sessions.tenantId, tenantId));
      return rows.map((r) => r.id).sort();
    };

    const ACTIVE: JobStatus[] = JOB_STATUSES.filter((s) => !TERMINAL.includes(s));

    it.each(TERMINAL.map((s) => [s]))(
      "a %s job finished past the retention goes; one finished inside it stays",
      async (status) => {
        const sid = await session("s", "active", 0);
        const old = await job("old", sid, status, 40, 31);
        const fresh = await job("fresh", sid, status, 40, 29);
        // Created long ago, finished recently (it waited for an approval or a client): kept.
        const waited = await job("waited", sid, status, 400, 1);
        const counts = await prunePass(f.a, SETTINGS, NOW);
        expect(await jobIds()).toEqual([fresh, waited].sort());
        expect(await jobIds()).not.toContain(old);
        expect(counts.jobs).toBeGreaterThanOrEqual(1);
      },
    );

    it.each(ACTIVE.map((s) => [s]))("a %s job is never pruned, however old", async (status) => {
      const sid = await session("s", "active", 0);
      const jid = await job("old", sid, status, 900, null);
      await prunePass(f.a, SETTINGS, NOW);
      expect(await jobIds()).toEqual([jid]);
    });

    it("a session's ordering stands: its queued call and its next position are untouched when earlier calls go", async () => {
      const { jobs, sessions } = tablesOf(f.a);
      const sid = await session("s", "active", 0);
      await f.a.update(sessions).set({ nextSeq: 5 }).where(eq(sessions.id, sid));
      for (let seq = 1; seq <= 3; seq++) await job(`done${seq}`, sid, "succeeded", 90, 60);
      const queued = await job("queued", sid, "queued", 90, null);
      await f.a.update(jobs).set({ seq: 4 }).where(eq(jobs.id, queued));
      await prunePass(f.a, SETTINGS, NOW);
      expect(await jobIds()).toEqual([queued]);
      const [row] = await f.a
        .select({ nextSeq: sessions.nextSeq })
        .from(sessions)
        .where(eq(sessions.id, sid));
      const [left] = await f.a
        .select({ seq: jobs.seq, status: jobs.status })
        .from(jobs)
        .where(eq(jobs.id, queued));
      expect([row?.nextSeq, left]).toEqual([5, { seq: 4, status: "queued" }]);
    });

    it("a job finished with no finish time (never expected) is kept, not guessed at", async () => {
      const sid = await session("s", "active", 0);
      const jid = await job("odd", sid, "succeeded", 900, null);
      await prunePass(f.a, SETTINGS, NOW);
      expect(await jobIds()).toEqual([jid]);
    });

    it("0 keeps every kind forever", async () => {
      const sid = await session("ended", "deleted", 900);
      const jid = await job("old", sid, "succeeded", 900, 900);
      const forever = {
        ...SETTINGS,
        jobDays: 0,
        sessionDays: 0,
        auditDays: 0,
        revokedKeyDays: 0,
        deliveryDays: 0,
      };
      await prunePass(f.a, forever, NOW);
      expect(await jobIds()).toEqual([jid]);
      expect(await sessionIds()).toEqual([sid]);
    });

    it("an ended session goes past its retention with its tasks and read cache, once its jobs are gone; a live one never", async () => {
      const t = tablesOf(f.a);
      const gone = await session("gone", "deleted", 31);
      const withJob = await session("withjob", "deleted", 31);
      const recent = await session("recent", "deleted", 29);
      const live = await session("live", "active", 900);
      const kept = await job("kept", withJob, "cancelled", 40, 29);
      await job("old", gone, "cancelled", 40, 31);
      await f.a
        .insert(t.sessionTasks)
        .values({ sessionId: gone, data: { tasks: [], lastId: 0 }, updatedAt: daysAgo(31) });
      await f.a.insert(t.readCache).values({
        sessionId: gone,
        filePath: "/workspace/a",
        lines: ["a"],
        mtimeMs: 1,
        contentHash: "h",
        sizeBytes: 1,
        updatedAt: daysAgo(31),
      });
      await prunePass(f.a, SETTINGS, NOW);
      expect(await sessionIds()).toEqual([live, recent, withJob].sort());
      expect(await jobIds()).toEqual([kept]);
      const tasks = await f.a.select().from(t.sessionTasks).where(eq(t.sessionTasks.sessionId, gone));
      const cache = await f.a.select().from(t.readCache).where(eq(t.readCache.sessionId, gone));
      expect([tasks.length, cache.length]).toEqual([0, 0]);
    });

    it("audit entries older than their retention go, newer stay; another tenant's rows are untouched", async () => {
      const { audit } = tablesOf(f.a);
      const entry = (name: string, age: number, tenantId = ten) => ({
        id: `aud_${name}_${tenantId}`,
        tenantId,
        sessionId: null,
        jobId: `job_x_${tenantId}`,
        kind: "decision",
        actorKeyId: null,
        data: { tool: "Bash" },
        createdAt: daysAgo(age),
      });
      await f.a
        .insert(audit)
        .values([entry("a", 401), entry("b", 401), entry("c", 399), entry("d", 500, other)]);
      // The other tenant's: an old audit entry (its own, old too: gone), and a job inside retention.
      const osid = await session("s", "active", 0, other);
      const ojob = await job("fresh", osid, "succeeded", 40, 29, other);
      await prunePass(f.a, SETTINGS, NOW);
      const left = await f.a
        .select({ id: audit.id })
        .from(audit)
        .where(inArray(audit.tenantId, [ten, other]));
      expect(left.map((r) => r.id).sort()).toEqual([`aud_c_${ten}`]);
      expect(await jobIds(other)).toEqual([ojob]);
    });

    it("revoked keys go past their retention; live keys and recently revoked ones stay", async () => {
      const { apiKeys } = tablesOf(f.a);
      const key = (name: string, revoked: number | null) => ({
        id: `key_${name}_${ten}`,
        tenantId: ten,
        role: "agent" as const,
        name,
        hash: `hash_${name}_${ten}`,
        createdAt: daysAgo(999),
        revokedAt: revoked === null ? null : daysAgo(revoked),
      });
      await f.a.insert(apiKeys).values([key("old", 91), key("recent", 89), key("live", null)]);
      await prunePass(f.a, SETTINGS, NOW);
      const left = await f.a.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.tenantId, ten));
      expect(left.map((r) => r.id).sort()).toEqual([`key_live_${ten}`, `key_recent_${ten}`]);
    });

    it("webhook deliveries delivered or given up go past their retention; pending ones never", async () => {
      const { webhookDeliveries } = tablesOf(f.a);
      const delivery = (name: string, status: "pending" | "delivered" | "failed", age: number) => ({
        id: `whd_${name}_${ten}`,
        tenantId: ten,
        event: "job.finished",
        jobId: `job_${name}_${ten}`,
        body: "{}",
        url: "https://example.invalid/hook",
        status,
        createdAt: daysAgo(age),
      });
      await f.a
        .insert(webhookDeliveries)
        .values([
          delivery("d", "delivered", 15),
          delivery("f", "failed", 15),
          delivery("p", "pending", 90),
          delivery("r", "delivered", 13),
        ]);
      await prunePass(f.a, SETTINGS, NOW);
      const left = await f.a
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.tenantId, ten));
      expect(left.map((r) => r.id).sort()).toEqual([`whd_p_${ten}`, `whd_r_${ten}`]);
    });

    it("batches walk past the rows they keep: every eligible row goes, whatever the batch size", async () => {
      const sid = await session("s", "active", 0);
      const kept: string[] = [];
      // Oldest first by creation: kept rows (finished recently) ahead of the eligible ones.
      for (let i = 0; i < 5; i++) kept.push(await job(`k${i}`, sid, "succeeded", 300 - i, 1));
      for (let i = 0; i < 7; i++) await job(`e${i}`, sid, "failed", 200 - i, 100);
      kept.push(await job("q", sid, "queued", 250, null));
      const counts = await prunePass(f.a, { ...SETTINGS, batch: 2 }, NOW);
      expect(await jobIds()).toEqual(kept.sort());
      expect(counts.jobs).toBe(7);
    });

    it("two pruners at once (two hosts) delete each eligible row once, and nothing else", async () => {
      const sid = await session("s", "active", 0);
      for (let i = 0; i < 30; i++) await job(`e${i}`, sid, "succeeded", 100, 60);
      const fresh = await job("fresh", sid, "succeeded", 100, 1);
      const s = { ...SETTINGS, batch: 4 };
      const [x, y] = await Promise.all([prunePass(f.a, s, NOW), prunePass(f.b, s, NOW)]);
      expect(await jobIds()).toEqual([fresh]);
      // Counted across both: every row once (other tenants' leftovers excepted, none here).
      expect((x.jobs ?? 0) + (y.jobs ?? 0)).toBe(30);
    });

    it("a pass that fails half-way leaves whole rows (a batch is one transaction); the next pass ends the work", async () => {
      const t = tablesOf(f.a);
      const sid = await session("s", "active", 0);
      const jobs: string[] = [];
      for (let i = 0; i < 6; i++) jobs.push(await job(`e${i}`, sid, "succeeded", 100 - i, 60));
      const ended = await session("ended", "deleted", 60);
      await f.a
        .insert(t.sessionTasks)
        .values({ sessionId: ended, data: { tasks: [], lastId: 3 }, updatedAt: daysAgo(60) });
      // The third batch (jobs e4, e5) fails: the disk is full, the database went away.
      let undo = await f.failDeleteOf("jobs", jobs[5]!);
      await expect(prunePass(f.a, { ...SETTINGS, batch: 2 }, NOW)).rejects.toThrow();
      // Whole batches went before it (batch sizes adapt: 2, or 1 on a slow machine); its own stays.
      const left = await jobIds();
      expect(left).toContain(jobs[5]!);
      expect(left.filter((j) => jobs.slice(0, 4).includes(j))).toEqual([]);
      await undo();
      // A session's delete fails after its tasks' delete ran in the same transaction: both stay.
      undo = await f.failDeleteOf("sessions", ended);
      await expect(prunePass(f.a, SETTINGS, NOW)).rejects.toThrow();
      expect(await jobIds()).toEqual([]);
      const tasks = await f.a.select().from(t.sessionTasks).where(eq(t.sessionTasks.sessionId, ended));
      expect(tasks).toHaveLength(1);
      expect(await sessionIds()).toEqual([ended, sid].sort());
      await undo();
      await prunePass(f.a, SETTINGS, NOW);
      expect(await sessionIds()).toEqual([sid]);
      // No row names a session that is gone.
      const orphans = await f.a
        .select({ id: t.sessionTasks.sessionId })
        .from(t.sessionTasks)
        .where(and(eq(t.sessionTasks.sessionId, ended)));
      expect(orphans).toEqual([]);
    });

    it("expired console sign-outs go; live ones stay", async () => {
      const { consoleSignouts } = tablesOf(f.a);
      const nonce = (name: string) => `n_${name}_${ten}`;
      await f.a.insert(consoleSignouts).values([
        { nonce: nonce("old"), expiresAt: daysAgo(1) },
        { nonce: nonce("live"), expiresAt: daysAgo(-1) },
      ]);
      await prunePass(f.a, SETTINGS, NOW);
      const left = await f.a
        .select({ nonce: consoleSignouts.nonce })
        .from(consoleSignouts)
        .where(inArray(consoleSignouts.nonce, [nonce("old"), nonce("live")]));
      expect(left.map((r) => r.nonce)).toEqual([nonce("live")]);
    });
  });
}
