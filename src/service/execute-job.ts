/** Runs a claimed job's tool through the session's toolkit and stores its result durably. */
import type { JobStatus, StoredResult } from "../db/schema.js";
import { AppError } from "../errors.js";
import type { ToolInput } from "../permission/types.js";
import { type Sandbox, SandboxUnavailableError } from "../sandbox/sandbox.js";
import type { ToolChunk } from "../toolkit/content.js";
import type { NextHandler, ToolMiddleware } from "../toolkit/middleware.js";
import type { ToolResponse } from "../toolkit/response.js";
import type { ToolRunContext } from "../toolkit/run-context.js";
import type { ToolBase } from "../toolkit/tool-base.js";
import type { ServiceDeps } from "./deps.js";
import { findJob } from "./job-view.js";
import { sessionMcpToolSets } from "./mcp-clients.js";
import { finishJob, publishState } from "./queueing.js";
import { type Claim, failJob, wakeSuccessors } from "./run-job.js";
import { acquireSessionSandbox } from "./session-sandbox.js";
import { sessionToolkit } from "./session-toolkit.js";
import { saveActiveGroups } from "./session-tools.js";
import { setSessionCwd } from "./sessions.js";
import { SqliteTaskStore } from "./task-store.js";

type Running = Extract<Claim, { kind: "run" }>;

/**
 * Throws SandboxUnavailableError (the caller retries with backoff); every other failure ends
 * the job: a tool that fails is a result, an unexpected exception a generic `failed`. The
 * sandbox is acquired on first use, so `reset_tools`, `Skill` and the task tools never start a
 * container.
 */
export async function executeJob(deps: ServiceDeps, claim: Running, signal: AbortSignal): Promise<void> {
  const { job, session } = claim;
  const guard = new CrashGuard(job.id);
  let built: Awaited<ReturnType<typeof sessionToolkit>>;
  try {
    const mcps = await sessionMcpToolSets(deps.mcp, deps, session);
    built = await sessionToolkit(deps, session, { wrap: (t) => guard.wrap(t), mcps });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return failJob(deps, job.id, `Error: ${err.message}`);
  }
  const { toolkit, activeGroups } = built;
  // Events are published in order but off the critical path; awaited before the result.
  let pending: Promise<unknown> = publishState(deps, job.id);
  const seen = new Set<string>();
  const publish = (chunk: ToolChunk) => {
    if (seen.has(chunk.id)) return;
    seen.add(chunk.id);
    const data = { content: chunk.content, state: chunk.state };
    pending = pending.then(() => deps.events.append(job.id, { type: "chunk", data })).catch(() => undefined);
  };
  let unavailable: SandboxUnavailableError | undefined;
  const ctx: ToolRunContext = {
    sessionId: session.id,
    sandbox: lazySandbox(
      session.id,
      () => acquireSessionSandbox(deps, session),
      (err) => (unavailable ??= err),
    ),
    cwd: session.cwd,
    home: session.home,
    workingDirectories: session.workingDirectories,
    mode: session.mode as ToolRunContext["mode"],
    readCache: deps.readCache,
    signal,
    autoAllowedEdit:
      session.mode === "accept_edits" &&
      job.decision.decidedBy !== "rule" &&
      job.decision.decidedBy !== "approval",
    setCwd: (cwd) => setSessionCwd(deps.db, session.id, cwd),
    onChunk: publish,
    activeGroups,
    setActiveGroups: (groups) => saveActiveGroups(deps.db, session.id, groups),
    taskStore: new SqliteTaskStore(deps.db),
  };

  const response = await toolkit.callTool(job.tool, job.input, ctx, { callId: job.id });
  await pending;
  if (unavailable) throw unavailable;
  if (guard.crash !== undefined) {
    deps.logger.error({ err: guard.crash, jobId: job.id, tool: job.tool }, "tool threw");
    return failJob(deps, job.id, guard.message);
  }
  const cancelled = signal.aborted || findJob(deps.db, job.id)?.cancelRequested === true;
  const status = statusOf(response, cancelled);
  if (finishJob(deps.db, job.id, status, toResult(response))) {
    deps.metrics.inc("toolshed_jobs_finished_total", { status });
    await publishState(deps, job.id);
  }
  await wakeSuccessors(deps, job.id);
}

/**
 * The outermost middleware of every built-in tool in a job: an unexpected exception is logged
 * and answered with a generic text (never the raw error); cancels and sandbox failures pass.
 */
class CrashGuard implements ToolMiddleware {
  crash: unknown;
  readonly message: string;

  constructor(jobId: string) {
    this.message = `Error: the tool failed unexpectedly (job ${jobId}).`;
  }

  wrap(tool: ToolBase): ToolBase {
    const middlewares = [this, ...tool.middlewares];
    return new Proxy(tool, { get: (t, key) => (key === "middlewares" ? middlewares : Reflect.get(t, key)) });
  }

  async *onToolCall(
    _tool: ToolBase,
    input: ToolInput,
    next: NextHandler,
    ctx: ToolRunContext,
  ): AsyncIterable<ToolChunk> {
    try {
      yield* next(input);
    } catch (err) {
      if (err instanceof SandboxUnavailableError || ctx.signal.aborted) throw err;
      this.crash = err;
      throw new Error(this.message);
    }
  }
}

/** A sandbox acquired on first use; reports SandboxUnavailableError even when a tool swallows it. */
function lazySandbox(
  sessionId: string,
  acquire: () => Promise<Sandbox>,
  onUnavailable: (err: SandboxUnavailableError) => void,
): Sandbox {
  let sandbox: Promise<Sandbox> | undefined;
  const use = async <T>(fn: (sb: Sandbox) => Promise<T>): Promise<T> => {
    try {
      sandbox ??= acquire();
      return await fn(await sandbox);
    } catch (err) {
      if (err instanceof SandboxUnavailableError) onUnavailable(err);
      throw err;
    }
  };
  return {
    sessionId,
    exec: (req) => use((sb) => sb.exec(req)),
    readFile: (path, opts) => use((sb) => sb.readFile(path, opts)),
    writeFile: (path, data) => use((sb) => sb.writeFile(path, data)),
    stat: (path) => use((sb) => sb.stat(path)),
    realPath: (path) => use((sb) => sb.realPath(path)),
    spawnProcess: (req) =>
      use(async (sb) => {
        if (!sb.spawnProcess) throw new Error("This sandbox cannot start long-lived processes.");
        return sb.spawnProcess(req);
      }),
  };
}

function statusOf(r: ToolResponse, cancelled: boolean): JobStatus {
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
