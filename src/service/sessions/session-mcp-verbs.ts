/**
 * A session as an MCP server (service side): its active tools with read-only / destructive
 * hints, and calls that go through `submitCall` (the same policy, queue and sandbox as
 * `POST /v1/sessions/{sid}/calls`), waited for and turned into MCP call results.
 */
import type { CallToolResult, Tool as McpToolDef, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { JobView } from "../../contracts/job.js";
import type { StoredResult } from "../../db/rows.js";
import { AppError, ValidationError } from "../../errors.js";
import { McpTool } from "../../toolkit/mcp/mcp-tool.js";
import type { ToolBase } from "../../toolkit/tool-base.js";
import { answerApproval } from "../calls/answer-approval.js";
import { cancelJob, waitForJob } from "../calls/job-verbs.js";
import { submitCall } from "../calls/submit-call.js";
import type { ServiceDeps } from "../ports.js";
import type { Principal } from "../tenancy/principal.js";
import { requireRole } from "../tenancy/principal.js";
import { sessionToolkit } from "./build-toolkit.js";
import { type McpRuntime, sessionMcpToolSets } from "./mcp-clients.js";
import { loadSession } from "./sessions.js";

/** How a session's MCP face lists tools and how long a call is waited for. */
export interface SessionMcpOptions {
  /** The tenant's MCP servers: their tools join the listing (with their own hints). */
  mcp?: McpRuntime;
  /** Default 60 s; a call still running after that answers with its job id. */
  waitMs?: number;
  /** With `onProgress`: how often it is called while the call runs (default 10 s). */
  progressEveryMs?: number;
  /** With `onProgress`: how long a call is followed to its end (default 30 min). */
  progressWaitMs?: number;
}

/** Told while a call runs (an MCP progress notification): seconds so far and the job's status. */
export type OnProgress = (update: { elapsedMs: number; status: string; jobId: string }) => Promise<void>;

/** The session's active tools as MCP tool definitions (the listing of `GET /v1/sessions/{sid}/tools`). */
export async function listSessionMcpTools(
  deps: ServiceDeps,
  p: Principal,
  sid: string,
  opts: SessionMcpOptions = {},
): Promise<{ tools: McpToolDef[]; instructions: string }> {
  requireRole(p, ["agent"]);
  const session = await loadSession(deps.db, p, sid);
  const mcps = await sessionMcpToolSets(opts.mcp, deps, session);
  const { toolkit, listing } = await sessionToolkit(deps, session, { mcps });
  const tools = listing.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as McpToolDef["inputSchema"],
    annotations: toolHints(toolkit.getTool(t.name)),
  }));
  return { tools, instructions: listing.systemPrompt };
}

/** MCP hints from the tool contract; an MCP tool passes on its own server's hints. */
export function toolHints(tool: ToolBase | undefined): ToolAnnotations | undefined {
  if (!tool) return undefined;
  const own = tool instanceof McpTool ? tool.annotations : {};
  return { ...own, readOnlyHint: tool.isReadOnly, destructiveHint: own.destructiveHint ?? !tool.isReadOnly };
}

/** Asks the client's user to approve (MCP elicitation): true, false, or null when not answered. */
export type AskApproval = (message: string) => Promise<boolean | null>;

/**
 * Submits and waits; an unknown tool throws ValidationError (a protocol error for the caller).
 * With `ask`, an ASK is put to the client's user; their answer counts only where the tenant lets
 * agents approve (`answerApproval` decides), otherwise the result names the job to approve.
 */
export async function callSessionTool(
  deps: ServiceDeps,
  p: Principal,
  sid: string,
  call: {
    name: string;
    args: Record<string, unknown>;
    signal?: AbortSignal;
    ask?: AskApproval;
    onProgress?: OnProgress;
    /** The W3C trace id the client continued (its `traceparent`): stored on the job. */
    traceId?: string;
  },
  opts: SessionMcpOptions = {},
): Promise<CallToolResult> {
  let job: JobView;
  try {
    ({ job } = await submitCall(
      deps,
      p,
      sid,
      { tool: call.name, input: call.args },
      { traceId: call.traceId },
    ));
  } catch (err) {
    // Bad arguments are the model's to fix: a tool error it can read, as the SDK's own servers do.
    if (err instanceof ValidationError && !err.details?.some((d) => d.path === "tool")) {
      const lines = (err.details ?? []).map((d) => `${d.path}: ${d.message}`);
      return errorResult([err.message, ...lines].join("\n"));
    }
    throw err;
  }
  let note = "";
  if (job.status === "awaiting_approval" && call.ask) {
    ({ job, note } = await askUser(deps, p, job, call.ask));
  }
  if (job.status === "queued" || job.status === "running") {
    const onAbort = () => void cancelJob(deps, p, job.id).catch(() => undefined);
    call.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      job = call.onProgress
        ? await followWithProgress(deps, job, call.onProgress, call.signal, opts)
        : await waitForJob(deps, job.id, opts.waitMs ?? 60_000);
    } finally {
      call.signal?.removeEventListener("abort", onAbort);
    }
  }
  const result = jobToCallResult(job);
  if (note && result.isError) result.content.push({ type: "text", text: note });
  return result;
}

/**
 * Waits in slices and reports progress after each one that ends with the call still pending: a
 * client that resets its timeout on progress (the MCP SDK's `resetTimeoutOnProgress`) then
 * follows a call longer than its request timeout to the end.
 */
async function followWithProgress(
  deps: ServiceDeps,
  job: JobView,
  onProgress: OnProgress,
  signal: AbortSignal | undefined,
  opts: SessionMcpOptions,
): Promise<JobView> {
  const started = Date.now();
  const every = opts.progressEveryMs ?? 10_000;
  const deadline = started + (opts.progressWaitMs ?? 30 * 60_000);
  let current = job;
  while ((current.status === "queued" || current.status === "running") && !signal?.aborted) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    current = await waitForJob(deps, job.id, Math.min(every, left));
    if (current.status === "queued" || current.status === "running") {
      // A client gone away must not end the wait early: the abort signal does that.
      await onProgress({ elapsedMs: Date.now() - started, status: current.status, jobId: job.id }).catch(
        () => undefined,
      );
    }
  }
  return current;
}

async function askUser(
  deps: ServiceDeps,
  p: Principal,
  job: JobView,
  ask: AskApproval,
): Promise<{ job: JobView; note: string }> {
  const input = JSON.stringify(job.input);
  const message = `Allow ${job.tool} (job ${job.id})? ${job.decision.message}\nInput: ${input.slice(0, 2_000)}`;
  let approve: boolean | null;
  try {
    approve = await ask(message);
  } catch {
    return { job, note: "" };
  }
  if (approve === null) return { job, note: "" };
  try {
    return { job: await answerApproval(deps, p, job.id, { approve }), note: "" };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { job, note: `The user's answer could not be applied: ${err.message}.` };
  }
}

/** A finished job as an MCP result; anything not finished names the job and what to do. */
export function jobToCallResult(job: JobView): CallToolResult {
  switch (job.status) {
    case "succeeded":
      return { content: toMcpContent(job.result), isError: false };
    case "failed":
    case "denied":
    case "cancelled":
      return { content: toMcpContent(job.result), isError: true };
    case "awaiting_approval":
      return errorResult(
        `${permissionText(job.decision.message)} The call is held as job ${job.id}. A tenant ` +
          `admin approves it with POST /v1/jobs/${job.id}/approval {"approve": true} (or denies it ` +
          `with {"approve": false}); its result is then at GET /v1/jobs/${job.id}.`,
      );
    case "awaiting_external":
      return errorResult(
        `The tool ${job.tool} is executed by the client: post its result for job ${job.id} to ` +
          `POST /v1/jobs/${job.id}/external-result.`,
      );
    default:
      return errorResult(
        `The call is still ${job.status} as job ${job.id}; its result will be at GET /v1/jobs/${job.id}.`,
      );
  }
}

function toMcpContent(result: StoredResult | undefined): CallToolResult["content"] {
  const out: CallToolResult["content"] = [];
  for (const block of result?.content ?? []) {
    if (block.type === "text") {
      out.push({ type: "text", text: block.text });
      continue;
    }
    const source = block.source as { type?: string; data?: string; url?: string; media_type?: string };
    const mimeType = source.media_type ?? "application/octet-stream";
    if (source.type === "base64" && source.data !== undefined) {
      if (mimeType.startsWith("image/")) out.push({ type: "image", data: source.data, mimeType });
      else if (mimeType.startsWith("audio/")) out.push({ type: "audio", data: source.data, mimeType });
      else out.push({ type: "resource", resource: { uri: "toolshed:data", blob: source.data, mimeType } });
    } else if (source.url !== undefined) {
      const name = typeof block.name === "string" ? block.name : source.url;
      out.push({ type: "resource_link", uri: source.url, name, mimeType });
    }
  }
  if (out.length === 0 && result?.exitCode !== undefined) out.push({ type: "text", text: "" });
  return out;
}

/** The policy's ASK message, which may already start with "Permission required" (Bash's do). */
export function permissionText(message: string): string {
  return /^Permission required\b/.test(message) ? message : `Permission required: ${message}`;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
