/**
 * The client posts the result of an external tool's call (`POST /v1/jobs/{jid}/external-result`):
 * only for a job `awaiting_external` (409 otherwise, so a result is taken once), by an agent or
 * tenant admin of the job's tenant. `isError` makes the job `failed` with an error result.
 */

import type { JobView } from "../../contracts/job.js";
import type { StoredResult } from "../../db/rows.js";
import { ConflictError } from "../../errors.js";
import type { ServiceDeps } from "../ports.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { auditKeys, inputDigest } from "./audit.js";
import { publishState } from "./job-transitions.js";
import { findJob, loadJob, toJobView } from "./job-view.js";

export interface ExternalResultInput {
  content: { type: "text"; text: string }[];
  isError?: boolean;
}

export async function postExternalResult(
  deps: Pick<ServiceDeps, "db" | "store" | "events" | "logger" | "metrics">,
  p: Principal,
  jobId: string,
  body: ExternalResultInput,
): Promise<JobView> {
  requireRole(p, ["agent", "tenant_admin"]);
  const job = await loadJob(deps, p, jobId);
  const status = body.isError ? ("failed" as const) : ("succeeded" as const);
  const result: StoredResult = {
    content: body.content.map((b) => ({ type: "text" as const, text: b.text })),
    state: body.isError ? "error" : "success",
  };
  const done = await deps.store.finishExternal(jobId, status, result, {
    ...auditKeys(job),
    kind: "external_result",
    actorKeyId: p.keyId,
    data: { tool: job.tool, isError: body.isError ?? false, resultDigest: inputDigest(result.content) },
  });
  if (!done) throw new ConflictError(`job ${jobId} is not awaiting an external result`);
  deps.metrics.jobFinished(status);
  await publishState(deps, jobId);
  return toJobView((await findJob(deps.db, jobId))!);
}
