/**
 * A tenant's active calls that have no stored row yet (a fast read runs before its row exists,
 * fast-read.ts): the store's count of queued + running calls misses them, so every write that
 * holds the tenant to `maxActiveCalls` leaves room for them (quotas.ts#withinActiveCalls).
 * Counted per process, by the worker (hand-off) that runs them.
 */
import type { CallHandoff, ServiceDeps } from "../ports.js";

const held = new WeakMap<CallHandoff, Map<string, number>>();

/** The tenant's calls held here apart from the store (0 without a worker in this process). */
export function heldActiveCalls(deps: Pick<ServiceDeps, "handoff">, tenantId: string): number {
  return deps.handoff ? (held.get(deps.handoff)?.get(tenantId) ?? 0) : 0;
}

/** Counts one more such call of the tenant until the returned release is called. */
export function holdActiveCall(handoff: CallHandoff, tenantId: string): () => void {
  const calls = held.get(handoff) ?? new Map<string, number>();
  held.set(handoff, calls);
  calls.set(tenantId, (calls.get(tenantId) ?? 0) + 1);
  return () => {
    const n = (calls.get(tenantId) ?? 1) - 1;
    if (n > 0) calls.set(tenantId, n);
    else calls.delete(tenantId);
  };
}
