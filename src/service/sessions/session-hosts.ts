/**
 * Where a session lives. A session is pinned to one worker host (one Docker engine) by
 * `sessions.host_id`, set when a worker with room pulls the session's first work from the shared
 * placement queue (no central scheduler). When a host is lost (its liveness key expired), its
 * sessions are unpinned and marked `workspaceLost`, and their queued and running calls go back
 * through placement: the next worker re-homes the session, and the take-over check
 * (worker/takeover.ts) ends a call the lost host had started `interrupted` unless it is safe to
 * run again.
 *
 * Workers on several hosts place and release concurrently, over SQLite or Postgres. Every write
 * here is one conditional statement (compare-and-set on the pin the caller saw), never a read
 * then a write, so whichever statement lands first wins and the others see its result.
 */
import { and, eq, inArray, isNotNull, isNull, or } from "drizzle-orm";
import { type Db, first, tablesOf } from "../../db/db.js";
import { activeJob } from "../../db/job-predicates.js";

/** The host a job's session is pinned to, or null (not placed yet, re-homing, or no such job). */
export async function hostOfJob(db: Db, jobId: string): Promise<string | null> {
  const { jobs, sessions } = tablesOf(db);
  const row = await first(
    db
      .select({ hostId: sessions.hostId })
      .from(jobs)
      .innerJoin(sessions, eq(sessions.id, jobs.sessionId))
      .where(eq(jobs.id, jobId))
      .limit(1),
  );
  return row?.hostId ?? null;
}

/** The host a session is pinned to, or null. */
export async function hostOfSession(db: Db, sessionId: string): Promise<string | null> {
  const { sessions } = tablesOf(db);
  const row = await first(
    db.select({ hostId: sessions.hostId }).from(sessions).where(eq(sessions.id, sessionId)).limit(1),
  );
  return row?.hostId ?? null;
}

/** A job's session id (placement of a call pins its session). */
export async function sessionOfJob(db: Db, jobId: string): Promise<string | null> {
  const { jobs } = tablesOf(db);
  const row = await first(db.select({ sid: jobs.sessionId }).from(jobs).where(eq(jobs.id, jobId)).limit(1));
  return row?.sid ?? null;
}

/** The pin of an active session (`hostId` null: unplaced), or undefined when it is gone. */
async function activePin(db: Db, sessionId: string): Promise<{ hostId: string | null } | undefined> {
  const { sessions } = tablesOf(db);
  const row = await first(
    db
      .select({ hostId: sessions.hostId, status: sessions.status })
      .from(sessions)
      .where(eq(sessions.id, sessionId))
      .limit(1),
  );
  return row?.status === "active" ? { hostId: row.hostId } : undefined;
}

/** Re-reads after a compare-and-set lost: a placement that landed meanwhile stands. */
const PLACE_ATTEMPTS = 3;

/**
 * Pins the session to `me` unless a live host holds it. `seen` is what the caller read before
 * asking Redis whether that host is alive; if the row moved meanwhile, another worker placed it
 * and that placement stands (compare-and-set: two workers placing one session agree). Returns the
 * session's host afterwards, or null when the session is gone (or, after a few lost races with
 * a host being released at the same moment, still unplaced: the caller queues the work again).
 */
export async function placeSession(
  db: Db,
  sessionId: string,
  me: string,
  seen: { hostId: string | null; alive: boolean },
): Promise<string | null> {
  const { sessions } = tablesOf(db);
  let expected = seen;
  for (let attempt = 0; attempt < PLACE_ATTEMPTS; attempt++) {
    const held = expected.hostId;
    if (held !== null && (held === me || expected.alive)) {
      // A live pin (or this host's own) stands: only confirm it is still the session's pin.
      const pin = await activePin(db, sessionId);
      if (!pin) return null;
      if (pin.hostId !== null) return pin.hostId;
    } else {
      // Unplaced, or a dead host's session the lost-host sweep has not reached yet (its
      // workspace is gone too): take it, provided the pin is still the one seen.
      const [won] = await db
        .update(sessions)
        .set(held === null ? { hostId: me } : { hostId: me, workspaceLost: true })
        .where(
          and(
            eq(sessions.id, sessionId),
            eq(sessions.status, "active"),
            held === null ? isNull(sessions.hostId) : eq(sessions.hostId, held),
          ),
        )
        .returning({ hostId: sessions.hostId });
      if (won) return me;
      const pin = await activePin(db, sessionId);
      if (!pin) return null;
      if (pin.hostId !== null) return pin.hostId;
    }
    // Unpinned meanwhile (the lost-host sweep released it): place it as an unplaced session.
    expected = { hostId: null, alive: false };
  }
  return null;
}

/**
 * A lost host's sessions: unpinned and marked `workspaceLost`; returns the jobs of those sessions
 * that expect a run (queued or running), oldest first, to be queued again through placement.
 * The unpinning is one statement on the pin itself: a session another worker took over first is
 * not that host's any more and is left alone (its new host runs its calls).
 */
export async function releaseLostHost(db: Db, hostId: string): Promise<string[]> {
  const { jobs, sessions } = tablesOf(db);
  const released = await db
    .update(sessions)
    .set({ hostId: null, workspaceLost: true })
    .where(and(eq(sessions.hostId, hostId), eq(sessions.status, "active")))
    .returning({ id: sessions.id });
  if (released.length === 0) return [];
  const rows = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(
        inArray(
          jobs.sessionId,
          released.map((r) => r.id),
        ),
        activeJob(jobs.status),
      ),
    )
    .orderBy(jobs.seq);
  return rows.map((r) => r.id);
}

/** The hosts active sessions are pinned to (listed again after Redis lost the list of hosts). */
export async function pinnedHosts(db: Db): Promise<string[]> {
  const { sessions } = tablesOf(db);
  const rows = await db
    .selectDistinct({ hostId: sessions.hostId })
    .from(sessions)
    .where(and(eq(sessions.status, "active"), isNotNull(sessions.hostId)));
  return rows.map((r) => r.hostId).filter((h): h is string => h !== null);
}

/** Active sessions a host may keep containers for (its own and the unplaced ones), for reaping. */
export async function sessionsOfHost(db: Db, hostId: string): Promise<Set<string>> {
  const { sessions } = tablesOf(db);
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.status, "active"), or(eq(sessions.hostId, hostId), isNull(sessions.hostId))));
  return new Set(rows.map((r) => r.id));
}
