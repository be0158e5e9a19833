/** MCP call results → toolkit content blocks (docs/toolkit.md#mcp-tools). */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ContentBlock } from "../content.js";
import { newId, textBlock } from "../response.js";

/** Text → text; image/audio → base64 data; text resources → JSON text; links → URL data. */
export function mcpContentToBlocks(result: CallToolResult): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case "text":
        blocks.push(textBlock(item.text));
        break;
      case "image":
      case "audio":
        blocks.push({
          type: "data",
          id: newId(),
          source: { type: "base64", data: item.data, media_type: item.mimeType },
          name: null,
        });
        break;
      case "resource":
        // Blob resources are skipped, as in the reference.
        if ("text" in item.resource) blocks.push(textBlock(JSON.stringify(item.resource, null, 2)));
        break;
      case "resource_link":
        blocks.push({
          type: "data",
          id: newId(),
          source: { type: "url", url: item.uri, media_type: item.mimeType ?? "application/octet-stream" },
          name: item.name,
        });
        break;
    }
  }
  // A result with only structured content still says something to the model.
  if (blocks.length === 0 && result.structuredContent !== undefined) {
    blocks.push(textBlock(JSON.stringify(result.structuredContent)));
  }
  return blocks;
}
