/** Job verbs for callers: read, wait, cancel (the dry-run decision lives in decide.ts). */

import { isTerminal, type JobView } from "../../contracts/job.js";
import { isDatabaseUnreachable } from "../../errors.js";
import type { ServiceDeps } from "../ports.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { finishJob, publishState } from "./job-transitions.js";
import { cancelledResult, findJob, loadJob, PENDING_WORK, toJobView } from "./job-view.js";

export async function getJob(deps: Pick<ServiceDeps, "db">, p: Principal, jobId: string): Promise<JobView> {
  requireRole(p, ["agent", "tenant_admin"]);
  return toJobView(await loadJob(deps, p, jobId));
}

/**
 * Resolves when the job leaves `queued`/`running` or after `timeoutMs`, whichever comes first,
 * with the job as it is then. Listens for events before re-reading, so no change is missed.
 * With `known` (the job as its submit answered it): a database that goes away meanwhile ends the
 * wait with that job (202, read it later), rather than a 503 that hides that it was accepted.
 */
export async function waitForJob(
  deps: ServiceDeps,
  jobId: string,
  timeoutMs: number,
  known?: JobView,
): Promise<JobView> {
  try {
    return await waitFor(deps, jobId, timeoutMs);
  } catch (err) {
    if (known && isDatabaseUnreachable(err)) return known;
    throw err;
  }
}

async function waitFor(deps: ServiceDeps, jobId: string, timeoutMs: number): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  // Run by this process (serve mode's hand-off): its end is known here, with no subscription and
  // no re-read. A run that ended without a final status (queued again for a retry elsewhere) is
  // waited for as any other, for the time left.
  const local = deps.handoff?.ended(jobId);
  if (local && timeoutMs > 0) {
    let timer: NodeJS.Timeout | undefined;
    const row = await Promise.race([
      local,
      new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (row && !PENDING_WORK.includes(row.status)) return toJobView(row);
    return waitAfterwards(deps, jobId, deadline - Date.now());
  }
  return waitAfterwards(deps, jobId, timeoutMs);
}

async function waitAfterwards(deps: ServiceDeps, jobId: string, timeoutMs: number): Promise<JobView> {
  const settled = async () => {
    const row = await findJob(deps.db, jobId);
    return row && !PENDING_WORK.includes(row.status) ? row : undefined;
  };
  const now = await settled();
  if (now || timeoutMs <= 0) return toJobView(now ?? (await findJob(deps.db, jobId))!);
  let wake: () => void = () => {};
  let woken = new Promise<void>((r) => (wake = r));
  const stop = await deps.events.watch(jobId, () => wake());
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const row = await settled();
      const left = deadline - Date.now();
      if (row || left <= 0) return toJobView(row ?? (await findJob(deps.db, jobId))!);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([woken, new Promise<void>((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
      woken = new Promise<void>((r) => (wake = r));
    }
  } finally {
    stop();
  }
}

/** Cancels a job: at once when it has not started, through the worker when it runs. */
export async function cancelJob(deps: ServiceDeps, p: Principal, jobId: string): Promise<JobView> {
  requireRole(p, ["agent", "tenant_admin"]);
  const row = await loadJob(deps, p, jobId);
  if (isTerminal(row.status)) return toJobView(row);
  // Decided from the row as the flag found it, not as read above: a worker may have claimed it
  // in between, and a claim after the flag skips it, so a row not running then never runs.
  const flagged = await deps.store.requestCancel(jobId);
  if (flagged?.status === "running") {
    // The stored flag is the cancel: a message that cannot go out (Redis away) only delays it to
    // the running worker's next read of its flags, so the answer is still the job.
    await deps.cancels.requestCancel(jobId).catch((err: unknown) => {
      deps.logger.warn({ err, jobId }, "cancel message not sent: the worker reads the flag");
    });
  } else if (flagged && !isTerminal(flagged.status)) {
    if (await finishJob(deps, jobId, "cancelled", cancelledResult(flagged.runs))) {
      await deps.queue.discard(jobId).catch(() => undefined);
      await publishState(deps, jobId);
    }
  }
  return toJobView((await findJob(deps.db, jobId))!);
}
