/**
 * The accumulated result of one tool call and the exact chunk-merge rules of
 * docs/toolkit.md#results-and-chunks, plus helpers that build chunks with fresh ids.
 */
import { randomUUID } from "node:crypto";
import type { ContentBlock, DataBlock, TextBlock, ToolChunk, ToolResultState } from "./content.js";

/** A final state: `running` never survives accumulation. */
export type ToolResponseState = Exclude<ToolResultState, "running">;

/** The accumulated final result; `id` is the tool call id. */
export interface ToolResponse {
  content: ContentBlock[];
  state: ToolResponseState;
  metadata: Record<string, unknown>;
  id: string;
}

/** Raised when two data blocks with one id cannot be merged (URL or mixed sources). */
export class ChunkMergeError extends Error {
  constructor(blockId: string) {
    super(`Cannot merge data blocks with id '${blockId}': only base64 sources can be concatenated.`);
    this.name = "ChunkMergeError";
  }
}

/** A fresh block or chunk id. */
export function newId(): string {
  return randomUUID();
}

/** An empty response in state `success`. */
export function createResponse(id: string = newId()): ToolResponse {
  return { content: [], state: "success", metadata: {}, id };
}

/** A chunk with fresh ids; state defaults to `running` (fine so far). */
export function chunk(
  content: ContentBlock[],
  opts: { state?: ToolResultState; metadata?: Record<string, unknown>; isLast?: boolean } = {},
): ToolChunk {
  return {
    content,
    state: opts.state ?? "running",
    isLast: opts.isLast ?? true,
    metadata: opts.metadata ?? {},
    id: newId(),
  };
}

/** A text block with a fresh id (or the given one, for streaming deltas). */
export function textBlock(text: string, id: string = newId()): TextBlock {
  return { type: "text", text, id };
}

/** A one-text-block chunk. */
export function textChunk(
  text: string,
  opts: { state?: ToolResultState; metadata?: Record<string, unknown>; blockId?: string } = {},
): ToolChunk {
  return chunk([textBlock(text, opts.blockId)], opts);
}

/** Merges one chunk into the response in place and returns it. */
export function appendChunk(response: ToolResponse, next: ToolChunk): ToolResponse {
  for (const block of next.content) mergeBlock(response, block);
  if (next.state === "error" || next.state === "interrupted" || next.state === "denied") {
    response.state = next.state;
  }
  Object.assign(response.metadata, next.metadata);
  response.content = mergeAdjacentTexts(response.content);
  return response;
}

function mergeBlock(response: ToolResponse, block: ContentBlock): void {
  const existing = response.content.find((b) => b.id === block.id);
  if (!existing) {
    response.content.push(structuredClone(block));
  } else if (existing.type === "text" && block.type === "text") {
    existing.text += block.text;
  } else if (existing.type === "data" && block.type === "data") {
    mergeData(existing, block);
  } else {
    response.content.push({ ...structuredClone(block), id: newId() });
  }
}

function mergeData(existing: DataBlock, block: DataBlock): void {
  const [a, b] = [existing.source, block.source];
  if (a.type !== "base64" || b.type !== "base64") throw new ChunkMergeError(block.id);
  const decodedA = decodeStrictBase64(a.data);
  const decodedB = decodeStrictBase64(b.data);
  a.data = decodedA && decodedB ? Buffer.concat([decodedA, decodedB]).toString("base64") : a.data + b.data;
  if (b.media_type) a.media_type = b.media_type;
  if (block.name) existing.name = block.name;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Node's decoder is lenient; the reference rejects malformed payloads and falls back to concat. */
function decodeStrictBase64(data: string): Buffer | undefined {
  return BASE64.test(data) ? Buffer.from(data, "base64") : undefined;
}

function mergeAdjacentTexts(blocks: ContentBlock[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const block of blocks) {
    const prev = out[out.length - 1];
    if (prev?.type === "text" && block.type === "text") prev.text += block.text;
    else out.push(block);
  }
  return out;
}
