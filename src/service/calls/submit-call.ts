/**
 * Submit a tool call: validate, decide, record the job with its decision (and an audit entry),
 * then act on it: enqueue (allow), finish (deny), wait for a human (ask, until the tenant's
 * approval TTL) or for the client (external tools).
 */
import { createHash } from "node:crypto";
import { passed } from "../../call-path.js";
import type { JobView } from "../../contracts/job.js";
import { dbNow } from "../../db/db-clock.js";
import type {
  JobRow,
  JobStatus,
  RuleStrings,
  SessionRow,
  StoredDecision,
  StoredResult,
} from "../../db/rows.js";
import type { InsertClaim, InsertClaimed } from "../../db/store.js";
import { ConflictError } from "../../errors.js";
import type { ToolInput } from "../../permission/types.js";
import type { ToolBase } from "../../toolkit/tool-base.js";
import type { McpToolSet } from "../../toolkit/tool-group.js";
import { systemClock } from "../clock.js";
import { newId } from "../ids.js";
import type { ServiceDeps } from "../ports.js";
import { loadSessionForCall } from "../sessions/sessions.js";
import { inactiveCall, resolveSessionTool, sessionMcpTools } from "../sessions/tool-list.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { checkActiveCalls, checkCallRate, withinActiveCalls } from "../tenancy/quotas.js";
import { readTenantSettings } from "../tenancy/tenant-settings.js";
import { canonicalJson, decisionAudit } from "./audit.js";
import { decideCall } from "./decide.js";
import { fastRead, mayRunAhead } from "./fast-read.js";
import { newJobRow } from "./job-row.js";
import { enqueueOrWithdraw, publishRow } from "./job-transitions.js";
import { textResult, toJobView } from "./job-view.js";
import { validateToolInput } from "./tool-input.js";

export interface SubmitCallInput {
  tool: string;
  input: unknown;
  idempotencyKey?: string;
}

/** How the caller takes the answer. */
export interface SubmitOptions {
  /** The caller waits for the result: a read-only call may then run before it is stored (fast-read.ts). */
  wait?: boolean;
  /** The submitting request's W3C trace id: stored on the job, whose worker lines carry it. */
  traceId?: string;
}

/**
 * Returns the job and whether it was created now (false: the idempotency key's existing job).
 * A key reused with a different body is a 409: it names another call.
 */
export async function submitCall(
  deps: ServiceDeps,
  p: Principal,
  sessionId: string,
  body: SubmitCallInput,
  opts: SubmitOptions = {},
): Promise<{ job: JobView; created: boolean }> {
  requireRole(p, ["agent"]);
  // The tenant's rules come with the session (one read), for the decision below.
  const { session, tenantRules } = await loadSessionForCall(deps.db, p, sessionId);
  passed("session loaded");
  const requestHash = body.idempotencyKey ? hashRequest(body) : null;
  const existing = await deps.store.findByKey(sessionId, body.idempotencyKey);
  if (existing) return { job: sameRequest(existing, requestHash), created: false };
  // Refused before anything is written when the job could not be queued or run (503).
  await deps.readiness.require(["redis", "docker"]);
  // The quota's Redis round trip overlaps resolving and deciding (CPU only); it is settled before
  // anything is written, and a refusal still wins over an error of the call itself, as before.
  const tenantId = session.tenantId;
  const quota = deps.readiness.bound("redis", checkCallRate(deps, tenantId));
  quota.catch(() => undefined);
  let plan: CallPlan;
  try {
    const mcps = await sessionMcpTools(deps, session);
    plan = await planCall(deps, session, tenantRules, body, mcps);
  } catch (err) {
    await checkActiveCalls(deps, tenantId, (await quota).maxActiveCalls);
    throw err;
  }
  passed("planned");
  const { maxActiveCalls } = await quota;
  const row = await jobRowFor(deps, session, plan, body.idempotencyKey);
  row.requestHash = requestHash;
  row.traceId = opts.traceId ?? null;
  const ahead = mayRunAhead(plan.tool, row, opts.wait);
  // The tenant's queued + running bound. A call that will take a slot (queued, or run ahead) is
  // held to it by the transaction that stores it (insertJob, insertClaimed and insertFinished
  // count), with the same 429: counted once, not twice. Any other (asked, denied, external,
  // failed) takes no slot and is refused here, early, as before.
  if (row.status !== "queued") await checkActiveCalls(deps, tenantId, maxActiveCalls);
  else if (ahead) {
    const done = await fastRead(deps, p, session, row, plan.tool, maxActiveCalls);
    if (done) {
      deps.metrics.inc("toolshed_calls_submitted_total", { behavior: row.decision.behavior });
      return { job: toJobView(done), created: true };
    }
    // Not kept: stored and run the usual way, under an id the executor has not seen.
    row.id = newId("job");
  }
  // Re-checked inside the write: a concurrent submit with the same key may have won meanwhile
  // (in another process the unique index is what stops it), and so may concurrent submits that
  // all passed the early quota check: the write is what holds the tenant to its limit.
  // A call this process's worker can run now is claimed by its own insert (one transaction).
  const slot = row.status === "queued" ? deps.handoff?.reserve(row.id, row.sessionId) : undefined;
  let stored: InsertClaimed;
  try {
    stored = await insertUnlessKeyTaken(deps, p, row, maxActiveCalls, slot?.claim);
  } catch (err) {
    slot?.release();
    throw err;
  }
  if (stored.kind === "taken") {
    slot?.release();
    return { job: sameRequest(stored.job, requestHash), created: false };
  }
  // A claimed call's events (`queued`, then `running`) go out with its run's first write
  // (run-events.ts); any other is published and queued here.
  if (slot && stored.claim.kind === "run") slot.run(stored.claim);
  else {
    slot?.release();
    await publishAndEnqueue(deps, row);
  }
  deps.metrics.inc("toolshed_calls_submitted_total", { behavior: row.decision.behavior });
  return { job: toJobView(row), created: true };
}

/**
 * Publishes the stored job's `queued` event and queues it (withdrawn if the queue refuses: 503).
 * A row the database could not withdraw (busy, or gone after the commit) stays accepted, and the
 * reconciler queues it (enqueueOrWithdraw): a 503 then would invite a second submit.
 */
async function publishAndEnqueue(deps: ServiceDeps, row: JobRow): Promise<void> {
  // Never throws; bounded so that a Redis hanging just now costs a second, not its timeout.
  // Not awaited before the enqueue (one round trip less per call): the event is written to the
  // command connection now, before the add, and the queue and the bus share that connection
  // (cli/compose), which Redis serves in order, so no worker, in any process, sees the job before
  // `queued` is in its stream. Were they ever split, this would have to await the event first.
  // `row` is the row as stored (the insert gave it its `seq`; nothing else changes it before it
  // is queued).
  const published = deps.readiness.bound("redis", publishRow(deps, row)).catch(() => undefined);
  if (row.status === "queued") await enqueueOrWithdraw(deps, row.id);
  await published;
}

/**
 * Inserts the job and its audit entry (claimed by the insert when `claim` is given and it may
 * start now); `taken` when a job already holds the key. A queued job past the tenant's limit on
 * queued + running calls is refused (429).
 */
function insertUnlessKeyTaken(
  deps: Pick<ServiceDeps, "store" | "handoff">,
  p: Principal,
  row: JobRow,
  maxActiveCalls: number,
  claim: InsertClaim | undefined,
): Promise<InsertClaimed> {
  return withinActiveCalls(deps, row.tenantId, maxActiveCalls, async (bound) => {
    const audit = decisionAudit(p.keyId, row);
    if (claim) return deps.store.insertClaimed(row, audit, { ...bound, claim });
    const taken = await deps.store.insertJob(row, audit, bound);
    return taken
      ? { kind: "taken", job: taken }
      : { kind: "stored", claim: { kind: "skip", reason: row.status } };
  });
}

/** `{tool, input}` as canonical JSON, hashed: what an idempotency key stands for. */
function hashRequest(body: SubmitCallInput): string {
  return createHash("sha256")
    .update(canonicalJson({ tool: body.tool, input: body.input }))
    .digest("hex");
}

/** The key's job when the body matches the one it was first used with; else 409. */
function sameRequest(existing: JobRow, requestHash: string | null): JobView {
  // Jobs stored before hashes were kept have none: they match as before.
  if (existing.requestHash && requestHash && existing.requestHash !== requestHash) {
    throw new ConflictError(
      `idempotency key ${JSON.stringify(existing.idempotencyKey)} was already used with a different body (job ${existing.id})`,
    );
  }
  return toJobView(existing);
}

interface CallPlan {
  tool: ToolBase;
  input: ToolInput;
  decision: StoredDecision;
  status: JobStatus;
  result: StoredResult | null;
}

/** Resolves, validates and decides; a tool of an inactive group fails at once, undecided. */
async function planCall(
  deps: ServiceDeps,
  session: SessionRow,
  tenantRules: RuleStrings,
  body: SubmitCallInput,
  mcps: McpToolSet[],
): Promise<CallPlan> {
  const resolved = await resolveSessionTool(deps, session, body.tool, mcps);
  if (resolved.inactive) {
    const { decision, result } = inactiveCall(session, resolved.message);
    return { tool: resolved.tool, input: body.input as ToolInput, decision, status: "failed", result };
  }
  const tool = resolved.tool;
  const input = validateToolInput(tool, body.input);
  const decision = await decideCall(deps.db, session, tool, input, tenantRules);
  const status = statusOf(decision, tool);
  const result = status === "denied" ? textResult(decision.message, "denied") : null;
  return { tool, input, decision, status, result };
}

function statusOf(decision: StoredDecision, tool: ToolBase): JobStatus {
  if (decision.behavior === "deny") return "denied";
  if (decision.behavior === "ask") return "awaiting_approval";
  return tool.isExternalTool ? "awaiting_external" : "queued";
}

async function jobRowFor(
  deps: Pick<ServiceDeps, "db" | "hostClock">,
  session: SessionRow,
  plan: CallPlan,
  idempotencyKey: string | undefined,
): Promise<JobRow> {
  const { status } = plan;
  const pending = status === "awaiting_approval";
  // A call that waits for a human is stamped by the database's clock (one more statement, off
  // the hot path): its expiry is judged by that clock on every host (approval-expiry.ts), so a
  // host whose clock is off would shorten or lengthen its TTL. Others take this host's clock.
  const now = pending ? (await dbNow(deps.db)).getTime() : (deps.hostClock ?? systemClock)().getTime();
  // The tenant's approval TTL (cached settings) only for a call that waits for a human.
  const expiresAt = async () => {
    const ttlMs = (await readTenantSettings(deps.db, session.tenantId)).approvalTtlSeconds * 1000;
    return new Date(now + ttlMs).toISOString();
  };
  const finished = status === "denied" || status === "failed";
  return newJobRow({
    id: newId("job"),
    tenantId: session.tenantId,
    sessionId: session.id,
    tool: plan.tool.name,
    input: plan.input,
    status,
    decision: plan.decision,
    result: plan.result,
    idempotencyKey: idempotencyKey ?? null,
    concurrencySafe: plan.tool.isConcurrencySafe,
    approvalExpiresAt: pending ? await expiresAt() : null,
    createdAt: new Date(now).toISOString(),
    finishedAt: finished ? new Date(now).toISOString() : null,
  });
}
