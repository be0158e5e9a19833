/**
 * Pending approvals expire: an `awaiting_approval` job past its `approval_expires_at` ends
 * `denied` with a result saying so, and an audit entry by "expiry". A periodic sweep (started by
 * the worker) does it for every tenant; reads and answers check the one job they touch, so
 * nobody sees a stale pending approval between sweeps.
 */
import { EXPIRY_ACTOR } from "../../contracts/job.js";
import { dbNow } from "../../db/db-clock.js";
import type { JobRow } from "../../db/rows.js";
import type { JobStore } from "../../db/store.js";
import type { ServiceDeps } from "../ports.js";
import { auditKeys, inputDigest } from "./audit.js";
import { publishState } from "./job-transitions.js";
import { textResult } from "./job-view.js";

function expiredResult(job: JobRow) {
  return textResult(
    `Permission to use ${job.tool} was denied: the approval request expired without an answer.`,
    "denied",
  );
}

/**
 * Denies the job if it is still pending and past its expiry; true when it did. "Past" is by the
 * database's clock (read with the locked row), not this host's: a host whose clock runs ahead
 * must not deny other hosts' approvals early. `now` overrides it (a test's later time).
 */
export function expireApproval(store: JobStore, jobId: string, now?: Date): Promise<boolean> {
  return store.settleApproval(jobId, (job, dbNow) => {
    const at = now?.toISOString() ?? dbNow;
    if (!job.approvalExpiresAt || job.approvalExpiresAt > at) return undefined;
    return {
      set: {
        status: "denied",
        decision: { ...job.decision, behavior: "deny", decidedBy: "approval" },
        result: expiredResult(job),
        approvedBy: EXPIRY_ACTOR,
        finishedAt: at,
      },
      remember: [],
      audit: {
        ...auditKeys(job),
        kind: "approval",
        actorKeyId: null,
        data: {
          approve: false,
          approvedBy: EXPIRY_ACTOR,
          tool: job.tool,
          inputDigest: inputDigest(job.input),
          reason: "the approval request expired",
          expiredAt: job.approvalExpiresAt,
        },
      },
    };
  });
}

/** The check on read: expires this one job when due (database clock) and tells its watchers. */
export async function expireIfDue(
  deps: Pick<ServiceDeps, "db" | "store" | "events" | "logger">,
  jobId: string,
  now?: Date,
): Promise<void> {
  if (await expireApproval(deps.store, jobId, now)) await publishState(deps, jobId);
}

/**
 * Expires every due approval; returns how many. One read of the database's clock per pass
 * decides for the whole pass (`now` overrides it: a test's later time).
 */
export async function sweepExpiredApprovals(
  deps: Pick<ServiceDeps, "db" | "store" | "events" | "logger">,
  now?: Date,
): Promise<number> {
  const at = now ?? (await dbNow(deps.db));
  const due = await deps.store.dueApprovals(at.toISOString());
  let n = 0;
  for (const id of due) {
    if (!(await expireApproval(deps.store, id, at))) continue;
    n++;
    await publishState(deps, id);
  }
  return n;
}

/** Runs the sweep every `intervalMs` until the returned stop function is called. */
export function startApprovalSweeper(
  deps: Pick<ServiceDeps, "db" | "store" | "events" | "logger">,
  intervalMs: number,
): () => void {
  const timer = setInterval(() => {
    sweepExpiredApprovals(deps).catch((err: unknown) =>
      deps.logger.error({ err }, "approval expiry sweep failed"),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
