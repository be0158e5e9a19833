/** Runs one tool call through `invoke` and accumulates the final response, for tests. */
import type { ToolInput } from "../../src/permission/types.js";
import { appendChunk, createResponse, type ToolResponse } from "../../src/toolkit/response.js";
import type { ToolRunContext } from "../../src/toolkit/run-context.js";
import { invoke, type ToolBase } from "../../src/toolkit/tool-base.js";

/** The accumulated response plus its text. */
export interface RunResult {
  response: ToolResponse;
  text: string;
  state: ToolResponse["state"];
  metadata: Record<string, unknown>;
}

/** Invokes `tool` and merges its chunks. */
export async function runTool(tool: ToolBase, input: ToolInput, ctx: ToolRunContext): Promise<RunResult> {
  const response = createResponse();
  for await (const c of invoke(tool, input, ctx)) appendChunk(response, c);
  const text = response.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  return { response, text, state: response.state, metadata: response.metadata };
}
