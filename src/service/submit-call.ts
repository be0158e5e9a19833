/** Submit a tool call: validate, decide, record the job with its decision, enqueue when allowed. */
import { and, eq } from "drizzle-orm";
import { audit, type JobRow, type JobStatus, jobs } from "../db/schema.js";
import { decideCall } from "./decide.js";
import type { ServiceDeps } from "./deps.js";
import { newId, nowIso } from "./ids.js";
import { type JobView, textResult, toJobView } from "./job-view.js";
import { type Principal, requireRole } from "./principal.js";
import { enqueueOrFail, publishState, takeSeq } from "./queueing.js";
import { checkCallRate } from "./quotas.js";
import { loadSession } from "./sessions.js";
import { resolveTool, validateToolInput } from "./tool-input.js";

export interface SubmitCallInput {
  tool: string;
  input: unknown;
  idempotencyKey?: string;
}

const STATUS_OF = { allow: "queued", deny: "denied", ask: "awaiting_approval" } as const;

/** Returns the job and whether it was created now (false: the idempotency key's existing job). */
export async function submitCall(
  deps: ServiceDeps,
  p: Principal,
  sessionId: string,
  body: SubmitCallInput,
): Promise<{ job: JobView; created: boolean }> {
  requireRole(p, ["agent"]);
  const session = loadSession(deps.db, p, sessionId);
  const existing = findByKey(deps, sessionId, body.idempotencyKey);
  if (existing) return { job: toJobView(existing), created: false };
  await checkCallRate(deps, session.tenantId);

  const tool = resolveTool(deps.tools, body.tool, session);
  const input = validateToolInput(tool, body.input);
  const decision = decideCall(deps.db, session, tool, input);
  const status: JobStatus = STATUS_OF[decision.behavior];
  const now = nowIso();
  const row: JobRow = {
    id: newId("job"),
    tenantId: session.tenantId,
    sessionId,
    tool: tool.name,
    input,
    status,
    decision,
    result: status === "denied" ? textResult(decision.message, "denied") : null,
    idempotencyKey: body.idempotencyKey ?? null,
    seq: null,
    concurrencySafe: tool.isConcurrencySafe,
    cancelRequested: false,
    runs: 0,
    error: null,
    approvalExpiresAt: null,
    approvedBy: null,
    createdAt: now,
    startedAt: null,
    finishedAt: status === "denied" ? now : null,
  };
  deps.db.transaction((tx) => {
    if (status === "queued") row.seq = takeSeq(tx, sessionId);
    tx.insert(jobs).values(row).run();
    tx.insert(audit)
      .values({
        id: newId("aud"),
        tenantId: session.tenantId,
        sessionId,
        jobId: row.id,
        kind: "decision",
        actorKeyId: p.keyId,
        data: { tool: row.tool, decision },
        createdAt: now,
      })
      .run();
  });
  deps.metrics.inc("toolshed_calls_submitted_total", { behavior: decision.behavior });
  await publishState(deps, row.id);
  if (status === "queued") await enqueueOrFail(deps, row.id);
  return { job: toJobView(row), created: true };
}

function findByKey(deps: ServiceDeps, sessionId: string, key: string | undefined): JobRow | undefined {
  if (!key) return undefined;
  return deps.db
    .select()
    .from(jobs)
    .where(and(eq(jobs.sessionId, sessionId), eq(jobs.idempotencyKey, key)))
    .get();
}
