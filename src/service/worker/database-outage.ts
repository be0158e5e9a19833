/**
 * A worker's step (claiming, running, storing a job's end) that the database's going away (or
 * its disk filling up) interrupted is done again once the database answers, rather than failed: failing it would
 * need the database too, and a row left `running` by a process that still lives is never taken
 * over. Done again, a call goes through the take-over check (takeover.ts): the executor
 * re-attaches to the command, or answers what it answered, so nothing runs twice.
 */
import { isStorageFull, waitsForDatabase } from "../../errors.js";
import type { ServiceDeps } from "../ports.js";

/** How long a step waits for the database before it gives up (its row is left to recovery). */
export const DATABASE_WAIT_MS = 10 * 60_000;
/** How often the database is looked at while a step waits for it. */
const LOOK_EVERY_MS = 1_000;
/** How often a step still waiting says so (the first failure and the recovery always do). */
export const LOG_WAIT_EVERY_MS = 60_000;

export interface OutageOptions {
  /** Aborted when the worker closes: the step gives up at once (recovery takes the row later). */
  signal: AbortSignal;
  maxWaitMs?: number;
  /** How often the database is looked at meanwhile (default 1 s). */
  lookEveryMs?: number;
  /** How often a step still waiting logs it again (default LOG_WAIT_EVERY_MS). */
  logEveryMs?: number;
}

/** `step()`, done again after each database outage it meets, for up to `maxWaitMs` of waiting. */
export async function throughDatabaseOutage<T>(
  deps: Pick<ServiceDeps, "readiness" | "logger">,
  step: () => Promise<T>,
  opts: OutageOptions,
): Promise<T> {
  const maxWaitMs = opts.maxWaitMs ?? DATABASE_WAIT_MS;
  const logEveryMs = opts.logEveryMs ?? LOG_WAIT_EVERY_MS;
  // A full disk lets the database's ping through, so the step is tried again each second: it
  // logs its wait when it starts, when the cause changes, every logEveryMs, and when it ends.
  let wait: { since: number; tries: number; loggedAt: number; full: boolean } | undefined;
  for (;;) {
    let result: T;
    try {
      result = await step();
    } catch (err) {
      if (!waitsForDatabase(err) || opts.signal.aborted) throw err;
      const now = Date.now();
      const full = isStorageFull(err);
      wait ??= { since: now, tries: 0, loggedAt: -Infinity, full };
      wait.tries++;
      if (wait.full !== full || now - wait.loggedAt >= logEveryMs) {
        const fields = { err: (err as Error).message, waitedMs: now - wait.since, tries: wait.tries };
        if (full)
          deps.logger.error(
            fields,
            "storage full: the step waits for free space (free disk space under DATA_DIR, or the database's disk)",
          );
        else deps.logger.warn(fields, "database unreachable: the step waits for it");
        wait.loggedAt = now;
        wait.full = full;
      }
      if (!(await databaseBack(deps, maxWaitMs, opts.lookEveryMs ?? LOOK_EVERY_MS, opts.signal))) throw err;
      continue;
    }
    if (wait) {
      const fields = { waitedMs: Date.now() - wait.since, tries: wait.tries + 1 };
      deps.logger.info(
        fields,
        wait.full ? "storage free again: the step went through" : "database back: the step went through",
      );
    }
    return result;
  }
}

/** Whether the database answers again within `maxWaitMs` (false when it does not, or on abort). */
async function databaseBack(
  deps: Pick<ServiceDeps, "readiness">,
  maxWaitMs: number,
  lookEveryMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  const deadline = Date.now() + maxWaitMs;
  while (!signal.aborted && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, lookEveryMs));
    try {
      await deps.readiness.require(["database"]);
      return true;
    } catch {
      // Still down: look again.
    }
  }
  return false;
}
