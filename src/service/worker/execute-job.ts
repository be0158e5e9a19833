/** Runs a claimed job's tool through the session's toolkit and stores its result durably. */
import type { JobRow, JobStatus, StoredResult } from "../../db/rows.js";
import { DbTaskStore } from "../../db/stores/task-store.js";
import { AppError, AttemptSupersededError, waitsForDatabase } from "../../errors.js";
import type { ToolInput } from "../../permission/types.js";
import { SandboxUnavailableError } from "../../sandbox/sandbox.js";
import type { ToolChunk } from "../../toolkit/content.js";
import type { NextHandler, ToolMiddleware } from "../../toolkit/middleware.js";
import type { ToolResponse } from "../../toolkit/response.js";
import type { ToolRunContext } from "../../toolkit/run-context.js";
import type { ToolBase } from "../../toolkit/tool-base.js";
import { BuiltinTool } from "../../toolkit/tools/builtin-tool.js";
import { auditKeys, writeAudit } from "../calls/audit.js";
import { finishJob, publishRow } from "../calls/job-transitions.js";
import { textResult } from "../calls/job-view.js";
import { transferKind } from "../files/transfer-job.js";
import type { ServiceDeps } from "../ports.js";
import { acquireSessionSandbox } from "../sessions/acquire-sandbox.js";
import { sessionToolkit } from "../sessions/build-toolkit.js";
import { sessionMcpToolSets } from "../sessions/mcp-clients.js";
import { sessionCwd, setSessionCwd } from "../sessions/sessions.js";
import { saveActiveGroups } from "../sessions/tool-list.js";
import { runDirectories } from "../sessions/working-directories.js";
import { attemptStillHeld, logSuperseded } from "./attempt-fence.js";
import { type Claim, failJob, recordAttemptSandbox, wakeSuccessors } from "./claim-job.js";
import { jobSandbox } from "./job-sandbox.js";
import { RunEvents } from "./run-events.js";
import { RunReadCache } from "./run-read-cache.js";
import { runTransfer } from "./run-transfer.js";
import { interruptedText, judgeTakeover } from "./takeover.js";

type Running = Extract<Claim, { kind: "run" }>;

/**
 * Throws SandboxUnavailableError (the caller retries with backoff); every other failure ends
 * the job: a tool that fails is a result, an unexpected exception a generic `failed`. The
 * sandbox is acquired on first use, so `reset_tools`, `Skill` and the task tools never start a
 * container. Resolves with the final row when this run stored it (undefined: it did not, or a
 * transfer ran). `onStored` hears that row as soon as it is stored, before its events are sent (a
 * turn later) and its successors woken: a waiter in this process answers from it (the row is the
 * truth; a stream follower that comes before the events closes with the stored result,
 * follow-job-events.ts).
 */
export async function executeJob(
  deps: ServiceDeps,
  claim: Running,
  signal: AbortSignal,
  onStored?: (row: JobRow) => void,
): Promise<JobRow | undefined> {
  const { job, session } = claim;
  const transfer = transferKind(job.tool);
  if (transfer) {
    await runTransfer(deps, claim, transfer);
    return undefined;
  }
  let built: RunToolkit;
  try {
    built = await runToolkit(deps, session);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // Announced as a run that starts is (below, off the hot path), so that a follower sees
    // `running`, and `queued` for a row its insert claimed (published nowhere else), before `failed`.
    await publishRow(deps, job, claim.atInsert ? ["queued"] : []);
    return failJob(deps, job.id, `Error: ${err.message}`);
  }
  const { toolkit, activeGroups } = built;
  // The run's events go out off the critical path, in as few writes as their order allows.
  const events = new RunEvents(deps, job, claim.atInsert ? ["queued"] : []);
  const seen = new Set<string>();
  // Only deltas become `chunk` events: a chunk that completes the response (`isLast`, such as
  // Bash's whole output after its live pieces) reaches clients once, in the `result` event.
  const publish = (chunk: ToolChunk) => {
    if (chunk.isLast || seen.has(chunk.id)) return;
    seen.add(chunk.id);
    const stream = chunk.metadata.stream;
    events.chunk({
      content: chunk.content,
      state: chunk.state,
      ...(typeof stream === "string" ? { stream } : {}),
    });
  };
  let unavailable: SandboxUnavailableError | undefined;
  let superseded: AttemptSupersededError | undefined;
  const jsb = jobSandbox({
    jobId: job.id,
    sessionId: session.id,
    acquire: () => acquireSessionSandbox(deps, session),
    // Recorded by the insert already when it knew the instance (InsertClaim.sandbox). Else the
    // record is the fence: it lands only while the job is still this attempt's.
    onInstance: (instance) =>
      instance === job.attempts?.at(-1)?.sandbox
        ? undefined
        : recordAttemptSandbox(deps, job.id, instance, job.runs),
    liveInstance: job.runs > 1,
    onUnavailable: (err) => (unavailable ??= err),
    onSuperseded: (err) => (superseded ??= err),
  });
  const tool = toolkit.getTool(job.tool);
  const verdict = await judgeTakeover({
    earlier: (job.attempts ?? []).slice(0, -1),
    readOnly: job.decision.readOnly === true || job.concurrencySafe || tool?.isReadOnly === true,
    keyed: tool instanceof BuiltinTool,
    currentSandbox: () => jsb.sandbox.instanceId!(),
  }).catch((err: unknown) => {
    if (err instanceof SandboxUnavailableError) unavailable ??= err;
    throw err;
  });
  if (verdict.kind === "interrupt") {
    const text = textResult(interruptedText(verdict.why), "interrupted");
    const final = await finishJob(deps, job.id, "interrupted", text, { run: job.runs });
    if (final) {
      onStored?.(final);
      const data = { outcome: "interrupted", why: verdict.why };
      await writeAudit(deps.db, { ...auditKeys(job), kind: "attempt", actorKeyId: null, data });
      deps.metrics.jobFinished("interrupted", job);
      deps.logger.warn({ jobId: job.id, why: verdict.why }, "job interrupted, not run again");
    }
    await events.end(final);
    await wakeSuccessors(deps, final ?? job);
    return final;
  }
  let crash: { err: unknown } | undefined;
  const readCache = new RunReadCache(deps.readCache, session.id);
  const ctx = runContext(deps, claim, {
    ...(await runDirectories(deps.db, session)),
    sandbox: jsb.sandbox,
    readCache,
    signal,
    onChunk: publish,
    activeGroups,
    reportCrash: (err) => {
      crash ??= { err };
    },
    onSuperseded: (err) => (superseded ??= err),
  });

  const response = await toolkit.callTool(job.tool, job.input, ctx, { callId: job.id });
  if (superseded) {
    // The job is another attempt's: its row, events and successors are that attempt's to write.
    events.drop();
    logSuperseded(deps.logger, { jobId: job.id, run: job.runs }, "it sent and wrote nothing more");
    return undefined;
  }
  if (unavailable || crash) await events.end();
  if (unavailable) throw unavailable;
  if (crash) {
    // The tool's own database step (the session's cwd, its task list): done again once it is back.
    if (waitsForDatabase(crash.err)) throw crash.err;
    deps.logger.error({ err: crash.err, jobId: job.id, tool: job.tool }, "tool threw");
    return failJob(deps, job.id, `Error: the tool failed unexpectedly (job ${job.id}).`);
  }
  // A cancel this worker was not told about (its message lost) is on the row: the finish reads
  // the flag itself and stores `cancelled` then.
  const status = runStatus(response, signal.aborted);
  const final = await finishJob(deps, job.id, status, toResult(response), {
    run: job.runs,
    cancelWins: true,
    readCache: readCache.held(),
  });
  if (final) {
    onStored?.(final);
    deps.metrics.jobFinished(final.status, job);
    // The waiter it wakes answers first (its promise steps down to the route's answer run in
    // this turn); the events' write (JSON, the script call) goes out in the next, still before
    // the successors are woken. A follower that comes between gets the stored result.
    if (onStored) await new Promise<void>((resolve) => setImmediate(resolve));
  } else {
    // Another attempt holds the job (this worker was cut off or frozen), or it ended elsewhere:
    // this run's result (a late MCP answer, say) is dropped.
    deps.logger.warn({ jobId: job.id, run: job.runs }, "finish refused: this run's result is discarded");
  }
  await events.end(final);
  // Stored: the executor may forget what it kept for this job. Only this run's own finish says
  // so: a refused one may mean another attempt holds the job (a second delivery took it over
  // while this run ended), and that attempt's keys must still find the memo. Forgotten before its
  // exec arrived (the ack rides on its own next request), its command would run a second time.
  if (final) jsb.used()?.acknowledge?.(job.id);
  await wakeSuccessors(deps, final ?? job);
  return final;
}

type RunToolkit = Awaited<ReturnType<typeof sessionToolkit>>;

/** The session's toolkit as a run uses it (every built-in tool wrapped by the crash guard). */
export async function runToolkit(deps: ServiceDeps, session: Running["session"]): Promise<RunToolkit> {
  const mcps = await sessionMcpToolSets(deps.mcp, deps, session, { local: true });
  return sessionToolkit(deps, session, { wrap: crashGuard.wrap, mcps });
}

/**
 * What a run's context takes from the run itself; the rest comes from its job and session.
 * `onSuperseded` hears a write the fence refused (the task store's), even when a tool swallows it.
 */
export type RunParts = { onSuperseded?: (err: AttemptSupersededError) => void } & Pick<
  ToolRunContext,
  | "sandbox"
  | "readCache"
  | "signal"
  | "onChunk"
  | "activeGroups"
  | "reportCrash"
  | "workingDirectories"
  | "workingDirectoryRoots"
>;

/** The context a job's tool runs in. */
export function runContext(
  deps: ServiceDeps,
  { job, session }: Pick<Running, "job" | "session">,
  { onSuperseded, ...parts }: RunParts,
): ToolRunContext {
  const attempt = { jobId: job.id, run: job.runs };
  return {
    ...parts,
    sessionId: session.id,
    // The directories the tenant's roots allow now (sessionWorkingDirectories), as the decision used.
    cwd: sessionCwd({ ...session, workingDirectories: parts.workingDirectories }),
    home: session.home,
    mode: session.mode as ToolRunContext["mode"],
    autoAllowedEdit:
      session.mode === "accept_edits" &&
      job.decision.decidedBy !== "rule" &&
      job.decision.decidedBy !== "approval",
    readOnlyCall: job.decision.readOnly === true,
    setCwd: async (cwd) => {
      if (!(await setSessionCwd(deps.db, session.id, cwd, attempt)))
        logSuperseded(deps.logger, attempt, "the session's cwd is left as it is");
    },
    setActiveGroups: async (groups) => {
      if (!(await saveActiveGroups(deps.db, session.id, groups, attempt)))
        logSuperseded(deps.logger, attempt, "the session's active groups are left as they are");
    },
    // An MCP request is preceded by the fence's check (one SELECT) and carries the call's key.
    attempt: {
      key: job.id,
      run: job.runs,
      fence: async () => {
        if (await attemptStillHeld(deps.db, attempt)) return;
        const err = new AttemptSupersededError(job.id);
        onSuperseded?.(err);
        throw err;
      },
    },
    // Fenced and keyed by the attempt: a task write happens once per call (task-store.ts).
    taskStore: new DbTaskStore(deps.db, { ...attempt, ...(onSuperseded ? { onSuperseded } : {}) }),
  };
}

/**
 * The outermost middleware of every built-in tool in a job: an unexpected exception is reported
 * to the call (`ctx.reportCrash`, which fails it with a generic text, never the raw error);
 * cancels, sandbox failures and a superseded attempt's refusals pass. One for the process, so
 * that a session's wrapped toolkit can be built once and shared by its calls (sessionToolkit
 * caches it).
 */
class CrashGuard implements ToolMiddleware {
  readonly wrap = (tool: ToolBase): ToolBase => {
    const middlewares = [this, ...tool.middlewares];
    return new Proxy(tool, { get: (t, key) => (key === "middlewares" ? middlewares : Reflect.get(t, key)) });
  };

  async *onToolCall(
    _tool: ToolBase,
    input: ToolInput,
    next: NextHandler,
    ctx: ToolRunContext,
  ): AsyncIterable<ToolChunk> {
    try {
      yield* next(input);
    } catch (err) {
      if (
        err instanceof SandboxUnavailableError ||
        err instanceof AttemptSupersededError ||
        ctx.signal.aborted
      )
        throw err;
      ctx.reportCrash?.(err);
      throw new Error("Error: the tool failed unexpectedly.");
    }
  }
}

const crashGuard = new CrashGuard();

/** A run's final status from its response (`cancelled`: its signal was aborted). */
export function runStatus(r: ToolResponse, cancelled: boolean): JobStatus {
  if (r.state === "interrupted") return cancelled ? "cancelled" : "failed";
  if (cancelled) return "cancelled";
  return { success: "succeeded", error: "failed", denied: "denied" }[r.state] as JobStatus;
}

/** The API's result shape: content blocks without ids, exit code and truncation lifted out. */
export function toResult(r: ToolResponse): StoredResult {
  const content = r.content.map((b) =>
    b.type === "text"
      ? { type: "text" as const, text: b.text }
      : { type: "data" as const, source: b.source, name: b.name },
  );
  const { exitCode, truncated } = r.metadata;
  return {
    content,
    state: r.state,
    ...(typeof exitCode === "number" || exitCode === null ? { exitCode: exitCode as number | null } : {}),
    ...(typeof truncated === "boolean" ? { truncated } : {}),
    ...(Object.keys(r.metadata).length > 0 ? { metadata: r.metadata } : {}),
  };
}
