/**
 * Following a job's events from a point (SSE): the Redis stream first, then live. When the
 * stream has expired or misses the end, the stored final result closes it, so a client always
 * gets a `result` event for a finished job.
 */

import { isTerminal, type JobStatus } from "../../contracts/job.js";
import { ValidationError } from "../../errors.js";
import type { JobEvent, ServiceDeps } from "../ports.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { statusEvent } from "./job-transitions.js";
import { findJob, loadJob } from "./job-view.js";

/** A stream event, or a `ping` when nothing happened for a while (keeps proxies from timing out). */
export type FollowedEvent = JobEvent | { type: "ping" };

export interface EventFollower extends AsyncIterable<FollowedEvent> {
  close(): void;
}

const IDLE_RECHECK_MS = 10_000;
/** The id of a `result` event rebuilt from the stored job (nothing follows it). */
const FINAL_ID = "final";
/** The id of the terminal `status` event sent before it (a resume from it gets the `result`). */
const FINAL_STATUS_ID = "final-status";

export async function followJobEvents(
  deps: ServiceDeps,
  p: Principal,
  jobId: string,
  resumeFrom?: string,
): Promise<EventFollower> {
  requireRole(p, ["agent", "tenant_admin"]);
  await loadJob(deps, p, jobId);
  const afterId = resumeFrom === undefined ? undefined : streamPosition(resumeFrom);
  let wake: () => void = () => {};
  let closed = false;
  const stop = await deps.events.watch(jobId, () => wake());
  const close = () => {
    closed = true;
    stop();
    wake();
  };

  async function* run(): AsyncGenerator<FollowedEvent> {
    let last = afterId;
    // Whether this stream owes its client the terminal `status` before a stored `result`: a new
    // stream, or one that sent events, tells the whole story; a resume that finds nothing after
    // its point (it had the end already, or the events expired) gets the `result` alone.
    let owesStatus = resumeFrom === undefined;
    try {
      while (!closed) {
        const signal = new Promise<void>((r) => (wake = r));
        const terminalBefore = isTerminal((await findJob(deps.db, jobId))?.status ?? "failed");
        // With Redis away the stream waits (pings go on); the stored result still closes it.
        const fresh = await deps.events.read(jobId, last).catch(() => []);
        for (const e of fresh) {
          yield e;
          last = e.id;
          if (e.type === "result") return;
          owesStatus = !(e.type === "status" && isTerminal((e.data as { status: JobStatus }).status));
        }
        if (terminalBefore) {
          // The row is final but its end events are not (yet) in the stream: the run that stored
          // it writes them a Redis round trip after its commit, or they expired.
          const final = await finalEvent(deps, jobId);
          if (owesStatus)
            yield { id: FINAL_STATUS_ID, ...statusEvent((final.data as { status: JobStatus }).status) };
          yield final;
          return;
        }
        let timer: NodeJS.Timeout | undefined;
        const idle = new Promise<"idle">((r) => (timer = setTimeout(() => r("idle"), IDLE_RECHECK_MS)));
        if ((await Promise.race([signal, idle])) === "idle") yield { type: "ping" };
        clearTimeout(timer);
      }
    } finally {
      stop();
    }
  }
  const iterator = run();
  return { close, [Symbol.asyncIterator]: () => iterator };
}

/** Next to the largest id Redis accepts (an exclusive range must have room): past every event. */
const END_ID = "18446744073709551615-18446744073709551614";

/**
 * Where a `Last-Event-ID` resumes. `final` (the rebuilt result's id), `final-status` (the
 * terminal status sent before it) and ids past the end resume after everything, so the stored
 * `result` is sent again rather than nothing.
 */
function streamPosition(lastEventId: string): string {
  if (lastEventId === FINAL_ID || lastEventId === FINAL_STATUS_ID) return END_ID;
  const m = /^(\d{1,30})-(\d{1,30})$/.exec(lastEventId);
  if (!m) {
    throw new ValidationError("invalid Last-Event-ID", [
      { path: "Last-Event-ID", message: "not an event id" },
    ]);
  }
  const max = 2n ** 64n - 1n;
  return BigInt(m[1]!) > max || BigInt(m[2]!) > max ? END_ID : lastEventId;
}

/** The stored outcome, for a stream that lost (or never had) its `result` event. */
async function finalEvent(deps: ServiceDeps, jobId: string): Promise<JobEvent> {
  const row = await findJob(deps.db, jobId);
  return { id: FINAL_ID, type: "result", data: { status: row?.status, result: row?.result ?? null } };
}
