/** A human answers an `ask`: approve (enqueue, optionally remembering rules) or deny. */
import { and, eq } from "drizzle-orm";
import { audit, jobs, sessions } from "../db/schema.js";
import { ConflictError } from "../errors.js";
import type { ServiceDeps } from "./deps.js";
import { newId, nowIso } from "./ids.js";
import { findJob, type JobView, loadJob, textResult, toJobView } from "./job-view.js";
import { type Principal, requireRole } from "./principal.js";
import { enqueueOrFail, publishState, takeSeq } from "./queueing.js";
import { parseRuleListOrThrow } from "./rules.js";

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
  requireRole(p, ["tenant_admin"]);
  const job = loadJob(deps.db, p, jobId);
  const remember = body.remember ?? [];
  parseRuleListOrThrow(remember, "allow", "remember");
  const now = nowIso();
  const answered = deps.db.transaction((tx) => {
    const current = tx.select().from(jobs).where(eq(jobs.id, jobId)).get();
    if (current?.status !== "awaiting_approval") return false;
    const decision = { ...job.decision, decidedBy: "approval" as const };
    const set = body.approve
      ? { status: "queued" as const, seq: takeSeq(tx, job.sessionId), decision }
      : {
          status: "denied" as const,
          decision: { ...decision, behavior: "deny" as const },
          result: textResult(`Permission to use ${job.tool} was denied by ${p.role}.`, "denied"),
          finishedAt: now,
        };
    tx.update(jobs)
      .set(set)
      .where(and(eq(jobs.id, jobId), eq(jobs.status, "awaiting_approval")))
      .run();
    if (body.approve && remember.length > 0) {
      const session = tx.select().from(sessions).where(eq(sessions.id, job.sessionId)).get();
      if (session) {
        const allow = [...new Set([...session.rules.allow, ...remember])];
        tx.update(sessions)
          .set({ rules: { ...session.rules, allow } })
          .where(eq(sessions.id, job.sessionId))
          .run();
      }
    }
    tx.insert(audit)
      .values({
        id: newId("aud"),
        tenantId: job.tenantId,
        sessionId: job.sessionId,
        jobId,
        kind: "approval",
        actorKeyId: p.keyId,
        data: { approve: body.approve, remember },
        createdAt: now,
      })
      .run();
    return true;
  });
  if (!answered) throw new ConflictError(`job ${jobId} is not awaiting approval (already answered?)`);
  await publishState(deps, jobId);
  if (body.approve) await enqueueOrFail(deps, jobId);
  return toJobView(findJob(deps.db, jobId)!);
}
