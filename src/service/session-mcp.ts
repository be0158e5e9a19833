/**
 * A session as an MCP server (service side): its active tools with read-only / destructive
 * hints, and calls that go through `submitCall` (the same policy, queue and sandbox as
 * `POST /v1/sessions/{sid}/calls`), waited for and turned into MCP call results.
 */
import type { CallToolResult, Tool as McpToolDef, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { StoredResult } from "../db/schema.js";
import { ValidationError } from "../errors.js";
import { McpTool } from "../toolkit/mcp/mcp-tool.js";
import type { ToolBase } from "../toolkit/tool-base.js";
import type { ServiceDeps } from "./deps.js";
import type { JobView } from "./job-view.js";
import { cancelJob, waitForJob } from "./jobs.js";
import type { Principal } from "./principal.js";
import { listSessionTools } from "./session-tools.js";
import { submitCall } from "./submit-call.js";

/** How a session's MCP face finds tools and how long a call is waited for. */
export interface SessionMcpOptions {
  /** The tool behind a listed name, for its hints; default the service's registry. */
  lookupTool?: (name: string) => ToolBase | undefined;
  /** Default 60 s; a call still running after that answers with its job id. */
  waitMs?: number;
}

/** The session's tools as MCP tool definitions, plus its system-prompt fragment. */
export function listSessionMcpTools(
  deps: ServiceDeps,
  p: Principal,
  sid: string,
  opts: SessionMcpOptions = {},
): { tools: McpToolDef[]; instructions: string } {
  const lookup = opts.lookupTool ?? ((name: string) => deps.tools.get(name));
  const listing = listSessionTools(deps, p, sid);
  const tools = listing.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as McpToolDef["inputSchema"],
    annotations: toolHints(lookup(t.name)),
  }));
  return { tools, instructions: listing.systemPrompt };
}

/** MCP hints from the tool contract; an MCP tool passes on its own server's hints. */
export function toolHints(tool: ToolBase | undefined): ToolAnnotations | undefined {
  if (!tool) return undefined;
  const own = tool instanceof McpTool ? tool.annotations : {};
  return { ...own, readOnlyHint: tool.isReadOnly, destructiveHint: own.destructiveHint ?? !tool.isReadOnly };
}

/** Submits and waits; an unknown tool throws ValidationError (a protocol error for the caller). */
export async function callSessionTool(
  deps: ServiceDeps,
  p: Principal,
  sid: string,
  call: { name: string; args: Record<string, unknown>; signal?: AbortSignal },
  opts: SessionMcpOptions = {},
): Promise<CallToolResult> {
  let job: JobView;
  try {
    ({ job } = await submitCall(deps, p, sid, { tool: call.name, input: call.args }));
  } catch (err) {
    // Bad arguments are the model's to fix: a tool error it can read, as the SDK's own servers do.
    if (err instanceof ValidationError && !err.details?.some((d) => d.path === "tool")) {
      const lines = (err.details ?? []).map((d) => `${d.path}: ${d.message}`);
      return errorResult([err.message, ...lines].join("\n"));
    }
    throw err;
  }
  if (job.status === "queued" || job.status === "running") {
    const onAbort = () => void cancelJob(deps, p, job.id).catch(() => undefined);
    call.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      job = await waitForJob(deps, job.id, opts.waitMs ?? 60_000);
    } finally {
      call.signal?.removeEventListener("abort", onAbort);
    }
  }
  return jobToCallResult(job);
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
        `Permission required: ${job.decision.message} The call is held as job ${job.id}. A tenant ` +
          `admin approves it with POST /v1/jobs/${job.id}/approval {"approve": true} (or denies it ` +
          `with {"approve": false}); its result is then at GET /v1/jobs/${job.id}.`,
      );
    case "awaiting_external":
      return errorResult(
        `The tool ${job.tool} is executed by the client: post its result for job ${job.id} to ` +
          `POST /v1/jobs/${job.id}/result.`,
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

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
