/**
 * Per-tenant quotas (429 with Retry-After): active sessions, queued + running calls, calls per
 * minute. A tenant's own settings override the platform defaults from the config.
 */

import { and, count, eq, inArray } from "drizzle-orm";
import { type Db, dialectOf, first, tablesOf } from "../../db/db.js";
import { preparedFor } from "../../db/prepared.js";
import type { TenantQuotas } from "../../db/rows.js";
import { ACTIVE_STATUSES, type ActiveBound, ActiveCallsFull } from "../../db/store.js";
import { RateLimitedError } from "../../errors.js";
import type { ServiceDeps } from "../ports.js";
import { heldActiveCalls } from "./calls-held.js";
import { readTenantSettings } from "./tenant-settings.js";

/** Used when neither the tenant nor the platform sets a limit on queued + running calls. */
export const DEFAULT_MAX_ACTIVE_CALLS = 10_000;
/** How long a caller over the active-calls limit should wait: calls usually finish fast. */
const ACTIVE_CALLS_RETRY_S = 2;

export type EffectiveQuotas = Required<TenantQuotas>;

export async function effectiveQuotas(
  deps: Pick<ServiceDeps, "db" | "quotas">,
  tenantId: string,
): Promise<EffectiveQuotas> {
  const own = (await readTenantSettings(deps.db, tenantId)).quotas;
  return {
    maxSessions: own.maxSessions ?? deps.quotas.maxSessions,
    maxActiveCalls: own.maxActiveCalls ?? deps.quotas.maxActiveCalls ?? DEFAULT_MAX_ACTIVE_CALLS,
    callsPerMinute: own.callsPerMinute ?? deps.quotas.callsPerMinute,
  };
}

export async function checkSessionQuota(
  deps: Pick<ServiceDeps, "db" | "quotas">,
  tenantId: string,
  /** The caller's new session is already written (and counted). */
  counted = false,
): Promise<void> {
  const { maxSessions } = await effectiveQuotas(deps, tenantId);
  const { sessions } = tablesOf(deps.db);
  const row = await first(
    deps.db
      .select({ n: count() })
      .from(sessions)
      .where(and(eq(sessions.tenantId, tenantId), eq(sessions.status, "active"))),
  );
  if ((row?.n ?? 0) - (counted ? 1 : 0) >= maxSessions) {
    throw new RateLimitedError(`the tenant already has ${maxSessions} active sessions`, 60);
  }
}

/** The tenant's calls that are queued or running now. */
export async function activeCallCount(db: Db, tenantId: string): Promise<number> {
  // Counted on every submit: prepared on SQLite (see db/prepared.ts).
  if (dialectOf(db) === "sqlite") return preparedFor(db).activeCount.get({ tenantId })?.n ?? 0;
  const { jobs } = tablesOf(db);
  const row = await first(
    db
      .select({ n: count() })
      .from(jobs)
      .where(and(eq(jobs.tenantId, tenantId), inArray(jobs.status, [...ACTIVE_STATUSES]))),
  );
  return row?.n ?? 0;
}

/**
 * Counts the call against the per-minute window, then checks the queued + running limit; returns
 * the quotas. This early check refuses before any work, whatever the call's outcome would be, but
 * concurrent submits can all pass it: the write that queues a call enforces the limit again,
 * atomically (withinActiveCalls).
 */
export async function checkCallQuotas(
  deps: Pick<ServiceDeps, "db" | "limiter" | "quotas">,
  tenantId: string,
): Promise<EffectiveQuotas> {
  const q = await checkCallRate(deps, tenantId);
  await checkActiveCalls(deps, tenantId, q.maxActiveCalls);
  return q;
}

/** checkCallQuotas' per-minute window alone; returns the quotas. */
export async function checkCallRate(
  deps: Pick<ServiceDeps, "db" | "limiter" | "quotas">,
  tenantId: string,
): Promise<EffectiveQuotas> {
  const q = await effectiveQuotas(deps, tenantId);
  const wait = await deps.limiter.hit(`calls:${tenantId}`, q.callsPerMinute, 60);
  if (wait !== null) {
    throw new RateLimitedError(`more than ${q.callsPerMinute} calls per minute for this tenant`, wait);
  }
  return q;
}

/** checkCallQuotas' early check of the queued + running limit alone. */
export async function checkActiveCalls(
  deps: Pick<ServiceDeps, "db">,
  tenantId: string,
  maxActiveCalls: number,
): Promise<void> {
  if ((await activeCallCount(deps.db, tenantId)) >= maxActiveCalls) throw activeCallsRefusal(maxActiveCalls);
}

/**
 * Runs a store write that may queue a call with the tenant's limit passed down, so that the store
 * counts and writes in one serialized transaction; its refusal becomes the same 429 as above.
 */
export async function withinActiveCalls<T>(
  deps: Pick<ServiceDeps, "handoff">,
  tenantId: string,
  maxActiveCalls: number,
  write: (bound: ActiveBound) => Promise<T>,
): Promise<T> {
  // The tenant's active calls the store does not count (reads running ahead here: calls-held.ts).
  const heldElsewhere = heldActiveCalls(deps, tenantId);
  try {
    return await write({ maxActive: maxActiveCalls - heldElsewhere });
  } catch (err) {
    if (err instanceof ActiveCallsFull) throw activeCallsRefusal(err.limit + heldElsewhere);
    throw err;
  }
}

function activeCallsRefusal(max: number): RateLimitedError {
  return new RateLimitedError(`the tenant already has ${max} calls queued or running`, ACTIVE_CALLS_RETRY_S);
}
