/**
 * Following a job's events from a point (SSE): the Redis stream first, then live. When the
 * stream has expired or misses the end, the stored final result closes it, so a client always
 * gets a `result` event for a finished job.
 */
import { ValidationError } from "../errors.js";
import type { JobEvent, ServiceDeps } from "./deps.js";
import { findJob, isTerminal, loadJob } from "./job-view.js";
import { type Principal, requireRole } from "./principal.js";

/** A stream event, or a `ping` when nothing happened for a while (keeps proxies from timing out). */
export type FollowedEvent = JobEvent | { type: "ping" };

export interface EventFollower extends AsyncIterable<FollowedEvent> {
  close(): void;
}

const IDLE_RECHECK_MS = 10_000;
/** The id of a `result` event rebuilt from the stored job (nothing follows it). */
const FINAL_ID = "final";

export async function followJobEvents(
  deps: ServiceDeps,
  p: Principal,
  jobId: string,
  afterId?: string,
): Promise<EventFollower> {
  requireRole(p, ["agent", "tenant_admin"]);
  loadJob(deps.db, p, jobId);
  if (afterId !== undefined && afterId !== FINAL_ID && !/^\d+-\d+$/.test(afterId)) {
    throw new ValidationError("invalid Last-Event-ID", [
      { path: "Last-Event-ID", message: "not an event id" },
    ]);
  }
  if (afterId === FINAL_ID) return { close: () => {}, [Symbol.asyncIterator]: async function* () {} };
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
    try {
      while (!closed) {
        const signal = new Promise<void>((r) => (wake = r));
        const terminalBefore = isTerminal(findJob(deps.db, jobId)?.status ?? "failed");
        for (const e of await deps.events.read(jobId, last)) {
          yield e;
          last = e.id;
          if (e.type === "result") return;
        }
        if (terminalBefore) {
          yield finalEvent(deps, jobId);
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

/** The stored outcome, for a stream that lost (or never had) its `result` event. */
function finalEvent(deps: ServiceDeps, jobId: string): JobEvent {
  const row = findJob(deps.db, jobId);
  return { id: FINAL_ID, type: "result", data: { status: row?.status, result: row?.result ?? null } };
}
