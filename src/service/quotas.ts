/** Per-tenant quotas: active sessions and calls per minute (429 with Retry-After). */
import { and, count, eq } from "drizzle-orm";
import { sessions } from "../db/schema.js";
import { RateLimitedError } from "../errors.js";
import type { ServiceDeps } from "./deps.js";

export function checkSessionQuota(deps: Pick<ServiceDeps, "db" | "quotas">, tenantId: string): void {
  const row = deps.db
    .select({ n: count() })
    .from(sessions)
    .where(and(eq(sessions.tenantId, tenantId), eq(sessions.status, "active")))
    .get();
  if ((row?.n ?? 0) >= deps.quotas.maxSessions) {
    throw new RateLimitedError(`the tenant already has ${deps.quotas.maxSessions} active sessions`, 60);
  }
}

export async function checkCallRate(
  deps: Pick<ServiceDeps, "limiter" | "quotas">,
  tenantId: string,
): Promise<void> {
  const wait = await deps.limiter.hit(`calls:${tenantId}`, deps.quotas.callsPerMinute, 60);
  if (wait !== null) {
    throw new RateLimitedError(
      `more than ${deps.quotas.callsPerMinute} calls per minute for this tenant`,
      wait,
    );
  }
}
