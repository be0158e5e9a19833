/**
 * Where a session lives. A session is pinned to one worker host (one Docker engine) by
 * `sessions.host_id`, set when a worker with room pulls the session's first work from the shared
 * placement queue (no central scheduler). When a host is lost (its liveness key expired), its
 * sessions are unpinned and marked `workspaceLost`, and their queued and running calls go back
 * through placement: the next worker re-homes the session, and the take-over check
 * (worker/takeover.ts) ends a call the lost host had started `interrupted` unless it is safe to
 * run again.
 */
import { and, eq, inArray, isNull, or } from "drizzle-orm";
import type { Db } from "../../db/open.js";
import { jobs, sessions } from "../../db/schema.js";

/** The host a job's session is pinned to, or null (not placed yet, re-homing, or no such job). */
export function hostOfJob(db: Db, jobId: string): string | null {
  const row = db
    .select({ hostId: sessions.hostId })
    .from(jobs)
    .innerJoin(sessions, eq(sessions.id, jobs.sessionId))
    .where(eq(jobs.id, jobId))
    .get();
  return row?.hostId ?? null;
}

/** The host a session is pinned to, or null. */
export function hostOfSession(db: Db, sessionId: string): string | null {
  return (
    db.select({ hostId: sessions.hostId }).from(sessions).where(eq(sessions.id, sessionId)).get()?.hostId ??
    null
  );
}

/** A job's session id (placement of a call pins its session). */
export function sessionOfJob(db: Db, jobId: string): string | null {
  return db.select({ sid: jobs.sessionId }).from(jobs).where(eq(jobs.id, jobId)).get()?.sid ?? null;
}

/**
 * Pins the session to `me` unless a live host holds it. `seen` is what the caller read before
 * asking Redis whether that host is alive; if the row moved meanwhile, another worker placed it
 * and that placement stands (compare-and-set: two workers placing one session agree). Returns the
 * session's host afterwards, or null when the session is gone.
 */
export function placeSession(
  db: Db,
  sessionId: string,
  me: string,
  seen: { hostId: string | null; alive: boolean },
): string | null {
  return db.transaction((tx) => {
    const row = tx
      .select({ hostId: sessions.hostId, status: sessions.status })
      .from(sessions)
      .where(eq(sessions.id, sessionId))
      .get();
    if (row?.status !== "active") return null;
    if (row.hostId !== seen.hostId) return row.hostId ?? placeUnpinned(tx, sessionId, me);
    if (row.hostId && (row.hostId === me || seen.alive)) return row.hostId;
    // A dead host's session the lost-host sweep has not reached yet: its workspace is gone too.
    if (row.hostId !== null) {
      tx.update(sessions)
        .set({ hostId: me, workspaceLost: true })
        .where(and(eq(sessions.id, sessionId), eq(sessions.hostId, row.hostId)))
        .run();
      return me;
    }
    return placeUnpinned(tx, sessionId, me);
  });
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

function placeUnpinned(tx: Tx, sessionId: string, me: string): string {
  tx.update(sessions)
    .set({ hostId: me })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.hostId)))
    .run();
  return me;
}

/**
 * A lost host's sessions: unpinned and marked `workspaceLost`; returns the jobs of those sessions
 * that expect a run (queued or running), oldest first, to be queued again through placement.
 */
export function releaseLostHost(db: Db, hostId: string): string[] {
  return db.transaction((tx) => {
    const owned = tx
      .select({ id: sessions.id })
      .from(sessions)
      .where(and(eq(sessions.hostId, hostId), eq(sessions.status, "active")))
      .all()
      .map((r) => r.id);
    if (owned.length === 0) return [];
    tx.update(sessions)
      .set({ hostId: null, workspaceLost: true })
      .where(and(eq(sessions.hostId, hostId), inArray(sessions.id, owned)))
      .run();
    return tx
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(inArray(jobs.sessionId, owned), inArray(jobs.status, ["queued", "running"])))
      .orderBy(jobs.seq)
      .all()
      .map((r) => r.id);
  });
}

/** Active sessions a host may keep containers for (its own and the unplaced ones), for reaping. */
export function sessionsOfHost(db: Db, hostId: string): Set<string> {
  const rows = db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.status, "active"), or(eq(sessions.hostId, hostId), isNull(sessions.hostId))))
    .all();
  return new Set(rows.map((r) => r.id));
}
