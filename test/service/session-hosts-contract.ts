/**
 * Session placement, run on each dialect (session-hosts.test.ts on SQLite,
 * session-hosts.pg.int.test.ts on Postgres): a live host's pin stands, a dead host's session is
 * taken over with `workspaceLost`, placements racing from two workers (two connections: two
 * hosts' processes) agree on one host, a release racing a take-over ends on the taker, and
 * releasing a lost host unpins its sessions and hands back their pending calls in queue order.
 * Races start every contender before awaiting any.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Db, first, tablesOf } from "../../src/db/db.js";
import {
  hostOfJob,
  hostOfSession,
  pinnedHosts,
  placeSession,
  releaseLostHost,
  sessionsOfHost,
} from "../../src/service/sessions/session-hosts.js";
import { jobRow, sessionRow } from "../support/rows.js";

export interface HostsFixture {
  /** Two handles on one database: two worker processes. */
  a: Db;
  b: Db;
  close(): Promise<void>;
}

let n = 0;
const now = new Date().toISOString();

export function placementContract(dialect: string, open: () => Promise<HostsFixture>): void {
  describe(`session placement (${dialect})`, () => {
    let f: HostsFixture;
    let tenantId: string;
    /** Unique per test: the Postgres database is shared by the file's tests. */
    const sid = (name: string) => `ses_${name}_${tenantId}`;
    const jid = (name: string) => `job_${name}_${tenantId}`;

    beforeEach(async () => {
      f = await open();
      tenantId = `ten${process.pid}x${Date.now().toString(36)}x${n++}`;
      const { tenants } = tablesOf(f.a);
      await f.a.insert(tenants).values({ id: tenantId, name: "a", createdAt: now });
    });
    afterEach(() => f.close());

    async function seedSession(
      name: string,
      hostId: string | null = null,
      status: "active" | "deleted" = "active",
    ) {
      const { sessions } = tablesOf(f.a);
      await f.a.insert(sessions).values(sessionRow({ id: sid(name), tenantId, status, hostId }));
      return sid(name);
    }

    async function seedJob(
      name: string,
      session: string,
      seq: number,
      status: "queued" | "running" | "succeeded",
    ) {
      const { jobs } = tablesOf(f.a);
      await f.a
        .insert(jobs)
        .values(jobRow({ id: jid(name), tenantId, sessionId: sid(session), status, seq }));
    }

    const lost = async (id: string) => {
      const { sessions } = tablesOf(f.a);
      const row = await first(f.a.select().from(sessions).where(eq(sessions.id, id)).limit(1));
      return row?.workspaceLost;
    };

    it("pins an unplaced session to the puller; a live host's pin stands", async () => {
      const s = await seedSession("new");
      expect(await placeSession(f.a, s, "h-a", { hostId: null, alive: false })).toBe("h-a");
      expect(await placeSession(f.b, s, "h-b", { hostId: "h-a", alive: true })).toBe("h-a");
      // A worker that read the row before the pin landed: the pin stands.
      expect(await placeSession(f.b, s, "h-b", { hostId: null, alive: false })).toBe("h-a");
      expect(await hostOfSession(f.b, s)).toBe("h-a");
      expect(await lost(s)).toBe(false);
    });

    it("takes over a dead host's session with workspaceLost; a stale placement keeps the winner", async () => {
      const s = await seedSession("old", "h-dead");
      expect(await placeSession(f.a, s, "h-b", { hostId: "h-dead", alive: false })).toBe("h-b");
      expect(await lost(s)).toBe(true);
      // Another worker read the old host before the first placement landed: the first one stands.
      expect(await placeSession(f.b, s, "h-c", { hostId: "h-dead", alive: false })).toBe("h-b");
      expect(await hostOfSession(f.a, s)).toBe("h-b");
    });

    it("a session that is gone or deleted is placed nowhere", async () => {
      const d = await seedSession("deleted", null, "deleted");
      expect(await placeSession(f.a, sid("gone"), "h-c", { hostId: null, alive: false })).toBeNull();
      expect(await placeSession(f.a, d, "h-c", { hostId: null, alive: false })).toBeNull();
      expect(await hostOfSession(f.a, d)).toBeNull();
    });

    it("a live pin that was released meanwhile is placed on the puller", async () => {
      const s = await seedSession("released", "h-a");
      expect(await releaseLostHost(f.b, "h-a")).toEqual([]);
      // The puller saw h-a alive, but the sweep unpinned the session since.
      expect(await placeSession(f.a, s, "h-c", { hostId: "h-a", alive: true })).toBe("h-c");
      expect(await hostOfSession(f.b, s)).toBe("h-c");
      expect(await lost(s)).toBe(true);
    });

    it("two workers placing the same unplaced sessions at once agree on one host each", async () => {
      const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => seedSession(`race${i}`)));
      const results = await Promise.all(
        ids.map((s) =>
          Promise.all([
            placeSession(f.a, s, "h-a", { hostId: null, alive: false }),
            placeSession(f.b, s, "h-b", { hostId: null, alive: false }),
          ]),
        ),
      );
      for (const [i, [ra, rb]] of results.entries()) {
        expect(ra).toBe(rb);
        expect(["h-a", "h-b"]).toContain(ra);
        expect(await hostOfSession(f.a, ids[i]!)).toBe(ra);
        expect(await lost(ids[i]!)).toBe(false);
      }
    });

    it("two workers taking over a dead host's sessions at once agree, each marked workspaceLost", async () => {
      const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => seedSession(`take${i}`, "h-dead")));
      const results = await Promise.all(
        ids.map((s) =>
          Promise.all([
            placeSession(f.a, s, "h-a", { hostId: "h-dead", alive: false }),
            placeSession(f.b, s, "h-b", { hostId: "h-dead", alive: false }),
          ]),
        ),
      );
      for (const [i, [ra, rb]] of results.entries()) {
        expect(ra).toBe(rb);
        expect(await hostOfSession(f.b, ids[i]!)).toBe(ra);
        expect(await lost(ids[i]!)).toBe(true);
      }
    });

    it("a lost-host sweep racing a take-over: the taker holds the session either way", async () => {
      const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => seedSession(`sweep${i}`, "h-dead")));
      const [released, ...placed] = await Promise.all([
        releaseLostHost(f.a, "h-dead"),
        ...ids.map((s) => placeSession(f.b, s, "h-b", { hostId: "h-dead", alive: false })),
      ]);
      expect(placed).toEqual(ids.map(() => "h-b"));
      for (const s of ids) {
        expect(await hostOfSession(f.a, s)).toBe("h-b");
        expect(await lost(s)).toBe(true);
      }
      expect(released!.length).toBe(0); // no jobs were seeded; the release touched only h-dead's pins
      expect(await releaseLostHost(f.a, "h-dead")).toEqual([]);
    });

    it("lists the hosts active sessions are pinned to, once each", async () => {
      const h = `h-${tenantId}`;
      await seedSession("p1", `${h}-1`);
      await seedSession("p2", `${h}-1`);
      await seedSession("p3", `${h}-2`, "deleted");
      await seedSession("p4");
      const hosts = (await pinnedHosts(f.b)).filter((x) => x.startsWith(h));
      expect(hosts).toEqual([`${h}-1`]);
    });

    it("releasing a lost host unpins its sessions and returns their pending calls in order", async () => {
      const s1 = await seedSession("1", "h-dead");
      const s2 = await seedSession("2", "h-live");
      await seedJob("3", "1", 3, "queued");
      await seedJob("1", "1", 1, "succeeded");
      await seedJob("2", "1", 2, "running");
      await seedJob("9", "2", 1, "queued");
      expect(await hostOfJob(f.a, jid("2"))).toBe("h-dead");
      expect(await releaseLostHost(f.b, "h-dead")).toEqual([jid("2"), jid("3")]);
      expect(await hostOfSession(f.a, s1)).toBeNull();
      expect(await hostOfJob(f.a, jid("2"))).toBeNull();
      expect(await lost(s1)).toBe(true);
      expect(await hostOfSession(f.a, s2)).toBe("h-live");
      expect(await lost(s2)).toBe(false);
      expect(await releaseLostHost(f.a, "h-dead")).toEqual([]);
      const mine = (set: Set<string>) => [...set].filter((id) => id.endsWith(tenantId)).sort();
      expect(mine(await sessionsOfHost(f.a, "h-live"))).toEqual([s1, s2].sort());
      expect(mine(await sessionsOfHost(f.b, "h-other"))).toEqual([s1]);
    });
  });
}
