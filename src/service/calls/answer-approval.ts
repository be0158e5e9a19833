/**
 * A human answers an `ask`: approve (the call is queued, or waits for its client when it is an
 * external tool; `remember` adds allow rules to the session) or deny. Tenant admins may answer;
 * agents only where the tenant's `agentsMayApprove` is on, and then may remember only the rules
 * the engine suggested for that call (an agent must not widen its own permissions at will).
 */

import type { JobView } from "../../contracts/job.js";
import type { JobRow } from "../../db/rows.js";
import type { ApprovalOutcome } from "../../db/store.js";
import { ConflictError, ForbiddenError } from "../../errors.js";
import { nowIso } from "../clock.js";
import type { ServiceDeps } from "../ports.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { effectiveQuotas, withinActiveCalls } from "../tenancy/quotas.js";
import { readTenantSettingsNow } from "../tenancy/tenant-settings.js";
import { getExternalTools } from "../tool-config/external-tools.js";
import { parseRuleListOrThrow } from "../tool-config/rules.js";
import { expireIfDue } from "./approval-expiry.js";
import { auditKeys, inputDigest } from "./audit.js";
import { enqueueOrReconcile, publishState } from "./job-transitions.js";
import { findJob, loadJob, textResult, toJobView } from "./job-view.js";

export interface ApprovalInput {
  approve: boolean;
  /** Allow rules added to the session's rules on approval. */
  remember?: string[];
}

export async function answerApproval(
  deps: ServiceDeps,
  p: Principal,
  jobId: string,
  body: ApprovalInput,
): Promise<JobView> {
  const job = await loadJob(deps, p, jobId);
  await checkApprover(deps, p, job, body.remember ?? []);
  await expireIfDue(deps, jobId);
  const external = (await getExternalTools(deps.db, job.tenantId)).some((t) => t.name === job.tool);
  const remember = body.approve ? (body.remember ?? []) : [];
  const decide = (current: JobRow): ApprovalOutcome => ({
    set: answerSet(current, p, body.approve, external),
    remember,
    audit: {
      ...auditKeys(job),
      kind: "approval",
      actorKeyId: p.keyId,
      data: {
        approve: body.approve,
        remember: body.remember ?? [],
        approvedBy: p.keyId,
        role: p.role,
        tool: job.tool,
        inputDigest: inputDigest(job.input),
      },
    },
  });
  // An approval that queues the call takes an active-call slot like a submit (the store checks
  // the limit only then): otherwise a tenant could queue past it through `ask` calls, which take
  // none while pending. Refused, the job stays pending and may be approved again later.
  const { maxActiveCalls } = await effectiveQuotas(deps, job.tenantId);
  const answered = await withinActiveCalls(deps, job.tenantId, maxActiveCalls, (bound) =>
    deps.store.settleApproval(jobId, decide, bound),
  );
  if (!answered)
    throw new ConflictError(`job ${jobId} is not awaiting approval (already answered or expired)`);
  await publishState(deps, jobId);
  if (body.approve && !external) await enqueueOrReconcile(deps, jobId);
  return toJobView((await findJob(deps.db, jobId))!);
}

async function checkApprover(
  deps: Pick<ServiceDeps, "db">,
  p: Principal,
  job: JobRow,
  remember: string[],
): Promise<void> {
  if (p.role === "agent") await checkAgentApprover(deps, job, remember);
  else requireRole(p, ["tenant_admin"]);
  parseRuleListOrThrow(remember, "allow", "remember");
}

async function checkAgentApprover(
  deps: Pick<ServiceDeps, "db">,
  job: JobRow,
  remember: string[],
): Promise<void> {
  // Read now, not cached: once a tenant turns this off, no process may still let an agent approve.
  if (!(await readTenantSettingsNow(deps.db, job.tenantId)).agentsMayApprove) {
    throw new ForbiddenError(
      "agents of this tenant may not answer approvals (tenant setting agentsMayApprove)",
    );
  }
  const unsuggested = remember.filter((r) => !job.decision.suggestions.includes(r));
  if (unsuggested.length > 0) {
    throw new ForbiddenError(
      `an agent may only remember the call's suggested rules, not ${unsuggested.join(", ")}`,
    );
  }
}

/** What an answer sets on the job; a `queued` one gets its session's next `seq` from the store. */
function answerSet(job: JobRow, p: Principal, approve: boolean, external: boolean): ApprovalOutcome["set"] {
  const decision = { ...job.decision, decidedBy: "approval" as const };
  if (approve) return { status: external ? "awaiting_external" : "queued", decision, approvedBy: p.keyId };
  return {
    status: "denied",
    decision: { ...decision, behavior: "deny" },
    result: textResult(`Permission to use ${job.tool} was denied by ${p.role}.`, "denied"),
    approvedBy: p.keyId,
    finishedAt: nowIso(),
  };
}
