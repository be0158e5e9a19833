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

export interface OutageOptions {
  /** Aborted when the worker closes: the step gives up at once (recovery takes the row later). */
  signal: AbortSignal;
  maxWaitMs?: number;
  /** How often the database is looked at meanwhile (default 1 s). */
  lookEveryMs?: number;
}

/** `step()`, done again after each database outage it meets, for up to `maxWaitMs` of waiting. */
export async function throughDatabaseOutage<T>(
  deps: Pick<ServiceDeps, "readiness" | "logger">,
  step: () => Promise<T>,
  opts: OutageOptions,
): Promise<T> {
  const maxWaitMs = opts.maxWaitMs ?? DATABASE_WAIT_MS;
  for (;;) {
    try {
      return await step();
    } catch (err) {
      if (!waitsForDatabase(err) || opts.signal.aborted) throw err;
      if (isStorageFull(err))
        deps.logger.error(
          { err: (err as Error).message },
          "storage full: the step waits for free space (free disk space under DATA_DIR, or the database's disk)",
        );
      else deps.logger.warn({ err: (err as Error).message }, "database unreachable: the step waits for it");
      if (!(await databaseBack(deps, maxWaitMs, opts.lookEveryMs ?? LOOK_EVERY_MS, opts.signal))) throw err;
      deps.logger.info("database back: the step is done again");
    }
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
