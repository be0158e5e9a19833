/**
 * The approvals stream (`GET /v1/approvals/events`): each job of the tenant that waits for an
 * answer as an `approval` event (those already waiting first, at connect), and a `resolved`
 * event when one leaves `awaiting_approval` (answered, expired, cancelled). Driven by the
 * tenant notices of `publishState`; an idle re-read of the database catches a notice that was
 * lost (Redis away, a change made without one).
 */
import { and, eq, gt, isNull, or } from "drizzle-orm";
import { type Db, tablesOf } from "../../db/db.js";
import { dbNowSql } from "../../db/db-clock.js";
import { ValidationError } from "../../errors.js";
import type { JobNotice, ServiceDeps } from "../ports.js";
import { listTenant } from "../tenancy/list-scope.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { type ApprovalItem, toApprovalItem } from "./approvals-inbox.js";
import { findJob } from "./job-view.js";

export type ApprovalEvent =
  | { type: "approval"; data: ApprovalItem }
  | { type: "resolved"; data: JobNotice }
  | { type: "ping" };

export interface ApprovalFollower extends AsyncIterable<ApprovalEvent> {
  close(): void;
}

const IDLE_RECHECK_MS = 15_000;
/** At most this many waiting items are sent at connect (the inbox pages the rest). */
const MAX_AT_CONNECT = 1000;

export async function followApprovals(
  deps: Pick<ServiceDeps, "db" | "events">,
  p: Principal,
  q: { tenantId?: string } = {},
  opts: { idleMs?: number } = {},
): Promise<ApprovalFollower> {
  requireRole(p, ["tenant_admin"]);
  const tenantId = await listTenant(deps.db, p, q.tenantId);
  if (tenantId === null) {
    throw new ValidationError("the platform admin names the tenant to follow", [
      { path: "tenantId", message: "required with the platform admin key" },
    ]);
  }
  const notices: JobNotice[] = [];
  let wake: () => void = () => {};
  let closed = false;
  // Subscribed before the first read, so nothing between the two is missed.
  const stop = await deps.events.watchTenant(tenantId, (n) => {
    notices.push(n);
    wake();
  });
  const close = () => {
    closed = true;
    stop();
    wake();
  };
  const idleMs = opts.idleMs ?? IDLE_RECHECK_MS;

  async function* run(): AsyncGenerator<ApprovalEvent> {
    /** Jobs this stream has announced and not yet resolved. */
    const shown = new Set<string>();
    try {
      for (const id of await waitingIds(deps.db, tenantId!)) {
        const e = await approvalEvent(deps.db, id);
        if (e) {
          shown.add(id);
          yield e;
        }
      }
      while (!closed) {
        const signal = new Promise<void>((r) => (wake = r));
        for (let n = notices.shift(); n; n = notices.shift()) {
          if (n.status === "awaiting_approval" && !shown.has(n.jobId)) {
            const e = await approvalEvent(deps.db, n.jobId);
            if (e) {
              shown.add(n.jobId);
              yield e;
            }
          } else if (n.status !== "awaiting_approval" && shown.delete(n.jobId)) {
            yield { type: "resolved", data: n };
          }
        }
        if (closed) return;
        let timer: NodeJS.Timeout | undefined;
        const idle = new Promise<"idle">((r) => (timer = setTimeout(() => r("idle"), idleMs)));
        const woke = await Promise.race([signal, idle]);
        clearTimeout(timer);
        if (woke !== "idle") continue;
        yield { type: "ping" };
        yield* resync(deps.db, tenantId!, shown);
      }
    } finally {
      stop();
    }
  }
  const iterator = run();
  return { close, [Symbol.asyncIterator]: () => iterator };
}

/** What the database says when no notice came for a while: new waiting jobs and resolved ones. */
async function* resync(db: Db, tenantId: string, shown: Set<string>): AsyncGenerator<ApprovalEvent> {
  const waiting = new Set(await waitingIds(db, tenantId));
  for (const id of [...shown]) {
    if (waiting.has(id)) continue;
    shown.delete(id);
    const status = (await findJob(db, id))?.status ?? "cancelled";
    yield { type: "resolved", data: { jobId: id, status } };
  }
  for (const id of waiting) {
    if (shown.has(id)) continue;
    const e = await approvalEvent(db, id);
    if (e) {
      shown.add(id);
      yield e;
    }
  }
}

/** The tenant's waiting, unexpired approvals, oldest first (the order they came in). */
async function waitingIds(db: Db, tenantId: string): Promise<string[]> {
  const { jobs } = tablesOf(db);
  const rows = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(
        eq(jobs.tenantId, tenantId),
        eq(jobs.status, "awaiting_approval"),
        or(isNull(jobs.approvalExpiresAt), gt(jobs.approvalExpiresAt, dbNowSql(db))),
      ),
    )
    .orderBy(jobs.createdAt, jobs.id)
    .limit(MAX_AT_CONNECT);
  return rows.map((r) => r.id);
}

/** The job as an inbox item, if it still waits (a notice may arrive after it was answered). */
async function approvalEvent(db: Db, jobId: string): Promise<ApprovalEvent | null> {
  const row = await findJob(db, jobId);
  return row?.status === "awaiting_approval" ? { type: "approval", data: toApprovalItem(row) } : null;
}
