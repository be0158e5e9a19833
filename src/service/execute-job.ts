/** Runs a claimed job's tool in the session's sandbox and stores its result durably. */
import type { JobStatus, StoredResult } from "../db/schema.js";
import { SandboxUnavailableError } from "../sandbox/sandbox.js";
import type { ToolChunk } from "../toolkit/content.js";
import { appendChunk, createResponse, type ToolResponse } from "../toolkit/response.js";
import type { ToolRunContext } from "../toolkit/run-context.js";
import { invoke } from "../toolkit/tool-base.js";
import { INTERRUPTED_TEXT } from "../toolkit/toolkit-errors.js";
import type { ServiceDeps } from "./deps.js";
import { findJob, textResult } from "./job-view.js";
import { finishJob, publishState } from "./queueing.js";
import { type Claim, failJob, wakeSuccessors } from "./run-job.js";
import { setSessionCwd } from "./sessions.js";

type Running = Extract<Claim, { kind: "run" }>;

/**
 * Throws SandboxUnavailableError (the caller retries with backoff); every other failure ends
 * the job: a tool that fails is a result, an unexpected exception a generic `failed`.
 */
export async function executeJob(deps: ServiceDeps, claim: Running, signal: AbortSignal): Promise<void> {
  const { job, session } = claim;
  const tool = deps.tools.get(job.tool);
  if (!tool) return failJob(deps, job.id, `Error: the tool ${job.tool} is no longer available.`);
  // Events are published in order but off the critical path; awaited before the result.
  let pending: Promise<unknown> = publishState(deps, job.id);
  const sandbox = await deps.sandboxes.acquire({ sessionId: session.id, tenantId: session.tenantId });
  const seen = new Set<string>();
  const publish = (chunk: ToolChunk) => {
    if (seen.has(chunk.id)) return;
    seen.add(chunk.id);
    const data = { content: chunk.content, state: chunk.state };
    pending = pending.then(() => deps.events.append(job.id, { type: "chunk", data })).catch(() => undefined);
  };
  const ctx: ToolRunContext = {
    sessionId: session.id,
    sandbox,
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
  };

  const response = createResponse(job.id);
  try {
    for await (const chunk of invoke(tool, job.input, ctx)) {
      publish(chunk);
      appendChunk(response, chunk);
    }
  } catch (err) {
    if (err instanceof SandboxUnavailableError) throw err;
    await pending;
    if (signal.aborted) {
      if (finishJob(deps.db, job.id, "cancelled", textResult(INTERRUPTED_TEXT, "interrupted"))) {
        await publishState(deps, job.id);
      }
      return wakeSuccessors(deps, job.id);
    }
    deps.logger.error({ err, jobId: job.id, tool: job.tool }, "tool threw");
    return failJob(deps, job.id, `Error: the tool failed unexpectedly (job ${job.id}).`);
  }
  await pending;
  const cancelled = signal.aborted || findJob(deps.db, job.id)?.cancelRequested === true;
  const status = statusOf(response, cancelled);
  if (finishJob(deps.db, job.id, status, toResult(response))) {
    deps.metrics.inc("toolshed_jobs_finished_total", { status });
    await publishState(deps, job.id);
  }
  await wakeSuccessors(deps, job.id);
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
