/**
 * The deps a job is run with: the service's, with a logger whose every line carries the job's id
 * and the trace id of the request that submitted it (docs/api.md, logs), so that the worker's
 * lines for the job join the caller's trace. Made once per run at the worker's boundary and passed
 * down (no async context: src/log.ts says why).
 */
import type { JobRow } from "../../db/rows.js";
import { type Logger, withLogContext } from "../../log.js";

export function jobDeps<D extends { logger: Logger }>(deps: D, job: Pick<JobRow, "id" | "traceId">): D {
  return {
    ...deps,
    logger: withLogContext(deps.logger, { jobId: job.id, traceId: job.traceId ?? undefined }),
  };
}
