/**
 * The webhook-delivery reconcile, run on each dialect (reconcile-deliveries.test.ts on SQLite,
 * reconcile-deliveries.pg.int.test.ts on Postgres): a pass writes exactly the deliveries owed
 * (walking pages of the index, ties of created_at across a page's edge included), nothing for a
 * status too fresh, too old, reached before the webhook was saved or not subscribed; two hosts
 * at once write each (job, event) once.
 */

import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JobStatus } from "../../../src/contracts/job.js";
import { type Db, tablesOf } from "../../../src/db/db.js";
import type { JobRow } from "../../../src/db/rows.js";
import { createLogger } from "../../../src/log.js";
import { reconcileDeliveries } from "../../../src/service/webhooks/reconcile-deliveries.js";
import { jobRow, sessionRow } from "../../support/rows.js";

export interface ReconcileFixture {
  /** Two handles on one database: two worker hosts. */
  a: Db;
  b: Db;
  close(): Promise<void>;
}

const OPTS = { windowMs: 3_600_000, settleMs: 5000, batch: 1000 };
const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
let n = 0;

export function reconcileContract(dialect: string, open: () => Promise<ReconcileFixture>): void {
  describe(`webhook delivery reconcile (${dialect})`, () => {
    let f: ReconcileFixture;
    let ten: string;
    let sid: string;
    let queued: string[];
    const deps = (db: Db) => ({
      db,
      logger: createLogger("silent"),
      webhooks: { queue: { enqueue: async (id: string) => void queued.push(id) } },
    });

    beforeEach(async () => {
      f = await open();
      queued = [];
      ten = `tenr${process.pid}x${n++}`;
      sid = `ses_${ten}`;
      const { tenants, sessions, webhooks } = tablesOf(f.a);
      await f.a.insert(tenants).values({ id: ten, name: ten, createdAt: ago(9000) });
      await f.a.insert(sessions).values(sessionRow({ id: sid, tenantId: ten }));
      await f.a.insert(webhooks).values({
        tenantId: ten,
        url: "http://127.0.0.1:9/hook",
        events: ["job.finished", "approval.expired"],
        secretEnc: "sealed",
        createdAt: ago(1800),
        updatedAt: ago(1800),
      });
    });
    afterEach(() => f.close());

    const job = (
      id: string,
      status: JobStatus,
      createdS: number,
      finishedS: number | null,
      more: Partial<JobRow> = {},
    ) =>
      jobRow({
        id: `job_${ten}_${id}`,
        tenantId: ten,
        sessionId: sid,
        status,
        createdAt: ago(createdS),
        finishedAt: finishedS === null ? null : ago(finishedS),
        ...more,
      });

    async function insert(rows: JobRow[]) {
      const { jobs } = tablesOf(f.a);
      for (let i = 0; i < rows.length; i += 500) await f.a.insert(jobs).values(rows.slice(i, i + 500));
    }

    /** Delivery rows for `rows`' job.finished, as the live path left them. */
    async function delivered(rows: JobRow[]) {
      const { webhookDeliveries } = tablesOf(f.a);
      const made = rows.map((r) => ({
        id: `whd_${r.id}`,
        tenantId: ten,
        event: "job.finished",
        jobId: r.id,
        body: "{}",
        url: "http://127.0.0.1:9/hook",
        status: "delivered" as const,
        createdAt: r.finishedAt ?? r.createdAt,
      }));
      for (let i = 0; i < made.length; i += 500)
        await f.a.insert(webhookDeliveries).values(made.slice(i, i + 500));
    }

    async function deliveriesOf(): Promise<[string, string][]> {
      const { webhookDeliveries: d } = tablesOf(f.a);
      const rows = await f.a.select({ jobId: d.jobId, event: d.event }).from(d).where(eq(d.tenantId, ten));
      return rows.map((r): [string, string] => [r.jobId, r.event]);
    }

    it("writes and queues what is owed across pages, once, and nothing else", async () => {
      // 2500 finished jobs, ten per created_at (ties across every page's edge of 1000).
      const many = Array.from({ length: 2500 }, (_, i) =>
        job(`m${String(i).padStart(4, "0")}`, "succeeded", 1200 - Math.floor(i / 10), 60),
      );
      const lost = [many[0]!, many[999]!, many[1000]!, many[2499]!];
      await insert(many);
      await delivered(many.filter((r) => !lost.includes(r)));
      const expired = job("expired", "denied", 600, 30, { approvedBy: "expiry" });
      const others = [
        job("fresh", "failed", 100, 1), // within the settling time: left to its live publish
        job("old", "failed", 4000, 30), // created before the window
        job("beforeSave", "failed", 3000, 2000), // reached its status before the webhook was saved
        job("waiting", "awaiting_approval", 100, null), // not subscribed
        job("running", "running", 100, null),
      ];
      await insert([expired, ...others]);
      await delivered([expired]); // its job.finished went; its approval.expired did not

      expect(await reconcileDeliveries(deps(f.a), OPTS)).toBe(5);
      const want = [
        ...lost.map((r): [string, string] => [r.id, "job.finished"]),
        [expired.id, "approval.expired"],
      ];
      const made = (await deliveriesOf()).filter(
        ([jobId, event]) => !(event === "job.finished" && !lost.some((r) => r.id === jobId)),
      );
      expect(made.sort()).toEqual([...want].sort());
      expect(queued).toHaveLength(5);
      // The body is the live path's: the job as it stands.
      const { webhookDeliveries: d } = tablesOf(f.a);
      const [first] = await f.a.select().from(d).where(eq(d.jobId, lost[0]!.id));
      expect(JSON.parse(first!.body)).toMatchObject({
        event: "job.finished",
        tenantId: ten,
        data: { job: { id: lost[0]!.id, status: "succeeded" } },
      });

      expect(await reconcileDeliveries(deps(f.a), OPTS)).toBe(0);
      expect(queued).toHaveLength(5);
    });

    it("a call still awaiting its approval gets its notice; one answered since gets none late", async () => {
      const { webhooks } = tablesOf(f.a);
      await f.a
        .update(webhooks)
        .set({ events: ["job.awaiting_approval"] })
        .where(eq(webhooks.tenantId, ten));
      const waiting = job("waiting", "awaiting_approval", 60, null, { approvalExpiresAt: ago(-3600) });
      // Answered (now queued, then running): the notice it asked for is moot; its job.finished follows.
      const answered = job("answered", "running", 60, null, { approvedBy: "key_x" });
      await insert([waiting, answered]);
      expect(await reconcileDeliveries(deps(f.a), OPTS)).toBe(1);
      expect(await deliveriesOf()).toEqual([[waiting.id, "job.awaiting_approval"]]);
      const { webhookDeliveries: d } = tablesOf(f.a);
      const [row] = await f.a.select().from(d).where(eq(d.jobId, waiting.id));
      // The approvals inbox item, as the live path sends it.
      expect(JSON.parse(row!.body).data).toMatchObject({
        job: { id: waiting.id, status: "awaiting_approval" },
      });
    });

    it("a stopped pass (its signal aborted) writes nothing more", async () => {
      await insert([job("stopped", "failed", 300, 20)]);
      const signal = AbortSignal.abort();
      expect(await reconcileDeliveries(deps(f.a), { ...OPTS, signal })).toBe(0);
      expect(await reconcileDeliveries(deps(f.a), OPTS)).toBe(1);
    });

    it("two hosts at once write each delivery once", async () => {
      const owed = Array.from({ length: 40 }, (_, i) => job(`t${i}`, "cancelled", 300, 20));
      await insert(owed);
      await Promise.all([reconcileDeliveries(deps(f.a), OPTS), reconcileDeliveries(deps(f.b), OPTS)]);
      const made = await deliveriesOf();
      expect(made).toHaveLength(40);
      expect(new Set(made.map(([jobId]) => jobId)).size).toBe(40);
      // Each row queued by the host that wrote it (BullMQ would drop a second add of an id anyway).
      expect(new Set(queued).size).toBe(40);
      expect(queued).toHaveLength(40);
    });
  });
}
