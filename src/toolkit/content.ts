/** Content blocks, chunks and the accumulated response (docs/toolkit.md#results-and-chunks). */

export type ToolResultState = "success" | "error" | "interrupted" | "denied" | "running";

export interface TextBlock {
  type: "text";
  text: string;
  id: string;
}

export type DataSource =
  | { type: "base64"; data: string; media_type: string }
  | { type: "url"; url: string; media_type: string };

export interface DataBlock {
  type: "data";
  id: string;
  source: DataSource;
  name: string | null;
}

export type ContentBlock = TextBlock | DataBlock;

/** One increment of tool output: deltas, merged by block id into a ToolResponse. */
export interface ToolChunk {
  content: ContentBlock[];
  state: ToolResultState;
  isLast: boolean;
  metadata: Record<string, unknown>;
  id: string;
}
