/**
 * Two hosts on one database, one of them with its clock 10 minutes ahead (an injected
 * `hostClock`, no global patching): the host ahead must not deny the other's pending approval
 * early (sweep or read), nor prune finished rows early, nor stamp its own approval's expiry late.
 * Run on each dialect (clock-skew.test.ts on SQLite, clock-skew.pg.int.test.ts on Postgres).
 * Every margin is minutes against a 10-minute skew: no test here races the wall clock.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { type Db, dialectOf, tablesOf } from "../../../src/db/db.js";
import type { PgDb } from "../../../src/db/pg/open-pg.js";
import { PgJobStore } from "../../../src/db/pg/pg-job-store.js";
import { SqliteJobStore } from "../../../src/db/stores/sqlite-job-store.js";
import { createLogger } from "../../../src/log.js";
import { expireIfDue, sweepExpiredApprovals } from "../../../src/service/calls/approval-expiry.js";
import type { HostClock } from "../../../src/service/clock.js";
import { Metrics } from "../../../src/service/metrics.js";
import type { ServiceDeps } from "../../../src/service/ports.js";
import {
  type RetentionSettings,
  retentionSettings,
  startPruner,
} from "../../../src/service/retention/pruner.js";
import { MemoryBus } from "../../support/memory-bus.js";
import { jobRow, sessionRow } from "../../support/rows.js";
import type { TwoHandles } from "../../support/two-handles.js";

const MIN = 60_000;
const SKEW = 10 * MIN;
const DAY = 86_400_000;
/** Jobs only (30 days), without pauses: the other kinds are not this file's subject. */
const SETTINGS: RetentionSettings = {
  ...retentionSettings(loadConfig({})),
  auditDays: 0,
  sessionDays: 0,
  revokedKeyDays: 0,
  deliveryDays: 0,
  pauseMs: 0,
};
let n = 0;

type Host = Pick<ServiceDeps, "db" | "store" | "events" | "logger" | "metrics" | "hostClock">;

function host(db: Db, hostClock: HostClock): Host {
  const store = dialectOf(db) === "pg" ? new PgJobStore(db as unknown as PgDb) : new SqliteJobStore(db);
  return {
    db,
    store,
    events: new MemoryBus(),
    logger: createLogger("silent"),
    metrics: new Metrics(),
    hostClock,
  };
}

export function clockSkewContract(dialect: string, open: () => Promise<TwoHandles>): void {
  describe(`a host whose clock is 10 minutes ahead (${dialect})`, () => {
    let h: TwoHandles;
    /** The host ahead; the host on time (`h.a`) writes the rows with its own clock. */
    let b: Host;
    let ten: string;
    let sid: string;

    beforeEach(async () => {
      h = await open();
      b = host(h.b, () => new Date(Date.now() + SKEW));
      ten = `tenc${process.pid}x${n++}`;
      sid = `ses_${ten}`;
      const { tenants, sessions } = tablesOf(h.a);
      await h.a.insert(tenants).values({ id: ten, name: "c", createdAt: new Date().toISOString() });
      await h.a.insert(sessions).values(sessionRow({ id: sid, tenantId: ten }));
    });
    afterEach(() => h.close());

    /** A job host `a` wrote with its own (true) clock, `offsetMs` from now. */
    async function pending(name: string, expiresInMs: number) {
      const id = `job_${name}_${ten}`;
      const at = (ms: number) => new Date(Date.now() + ms).toISOString();
      await h.a.insert(tablesOf(h.a).jobs).values(
        jobRow({
          id,
          tenantId: ten,
          sessionId: sid,
          status: "awaiting_approval",
          decision: { ...jobRow({ id, tenantId: ten, sessionId: sid }).decision, behavior: "ask" },
          approvalExpiresAt: at(expiresInMs),
        }),
      );
      return id;
    }
    async function finished(name: string, finishedAgoMs: number) {
      const id = `job_${name}_${ten}`;
      const at = new Date(Date.now() - finishedAgoMs).toISOString();
      await h.a
        .insert(tablesOf(h.a).jobs)
        .values(
          jobRow({ id, tenantId: ten, sessionId: sid, status: "succeeded", createdAt: at, finishedAt: at }),
        );
      return id;
    }
    const statusOf = async (id: string) => {
      const { jobs } = tablesOf(h.a);
      const [row] = await h.a.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, id));
      return row?.status;
    };

    it("does not deny another host's pending approval early, by its sweep or on read", async () => {
      const fresh = await pending("fresh", 5 * MIN);
      const due = await pending("due", -5 * MIN);
      await sweepExpiredApprovals(b);
      await expireIfDue(b, fresh);
      expect(await statusOf(fresh)).toBe("awaiting_approval");
      // The sweep does run: the one really past its expiry is denied.
      expect(await statusOf(due)).toBe("denied");
    });

    it("does not prune another host's finished rows early", async () => {
      const inside = await finished("inside", 30 * DAY - 5 * MIN);
      const past = await finished("past", 30 * DAY + 5 * MIN);
      const pruner = startPruner(b, SETTINGS, { intervalMs: 3_600_000 });
      await pruner.pass();
      await pruner.stop();
      expect(await statusOf(inside)).toBe("succeeded");
      expect(await statusOf(past)).toBeUndefined();
    });
  });
}
