/** MCP call results → toolkit content blocks (docs/toolkit.md#mcp-tools). */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ContentBlock } from "../content.js";
import { newId, textBlock } from "../response.js";

/**
 * What one result keeps: a server's answer is stored in the job row, written to the job's event
 * stream and sent to webhooks, so it is bounded as Bash output is (text cut with a mark; base64
 * data past its bound left out with a note, never cut, which would corrupt it).
 */
export const MAX_MCP_TEXT_CHARS = 100_000;
export const MAX_MCP_DATA_CHARS = 8 * 1024 * 1024;
/**
 * Content items kept: each block carries fields and an id of its own, so 8 MiB of empty items
 * (the transports' cap) would otherwise be ~20 MB stored.
 */
export const MAX_MCP_BLOCKS = 1000;
const TRUNCATED_MARK = "\n... (output truncated)";
/**
 * A resource link's parts: a URI longer than a browser takes is no link to follow (left out with a
 * note, never cut, which would point elsewhere); a name is a label (cut); a media type is
 * `type/subtype` of at most 255 characters (RFC 6838), anything else is said to be octets.
 */
export const MAX_MCP_LINK_URI_CHARS = 8192;
export const MAX_MCP_LINK_NAME_CHARS = 1000;
const MAX_MEDIA_TYPE_CHARS = 255;
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/;
const OCTETS = "application/octet-stream";
const mediaType = (t: string | undefined) =>
  t !== undefined && t.length <= MAX_MEDIA_TYPE_CHARS && MEDIA_TYPE.test(t) ? t : OCTETS;

/** Text → text; image/audio → base64 data; text resources → JSON text; links → URL data. */
export function mcpContentToBlocks(result: CallToolResult): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  let textLeft = MAX_MCP_TEXT_CHARS;
  let dataLeft = MAX_MCP_DATA_CHARS;
  const text = (s: string) => {
    if (textLeft <= 0) return;
    blocks.push(textBlock(s.length > textLeft ? s.slice(0, textLeft) + TRUNCATED_MARK : s));
    textLeft -= s.length;
  };
  /** Takes `chars` of the data bound, or says what was left out (its own words kept short). */
  const data = (chars: number, what: string) => {
    if (chars <= dataLeft) {
      dataLeft -= chars;
      return true;
    }
    text(`(${what.slice(0, 100)} of ${chars} characters left out: over the result's bound)`);
    return false;
  };
  const content = result.content ?? [];
  for (const item of content.slice(0, MAX_MCP_BLOCKS)) {
    switch (item.type) {
      case "text":
        text(item.text);
        break;
      case "image":
      case "audio": {
        const type = mediaType(item.mimeType);
        if (!data(item.data.length + type.length, type)) break;
        blocks.push({
          type: "data",
          id: newId(),
          source: { type: "base64", data: item.data, media_type: type },
          name: null,
        });
        break;
      }
      case "resource":
        // Blob resources are skipped, as in the reference.
        if ("text" in item.resource) text(JSON.stringify(item.resource, null, 2));
        break;
      case "resource_link": {
        if (item.uri.length > MAX_MCP_LINK_URI_CHARS) {
          text(`(a resource link's URI of ${item.uri.length} characters left out: over the link's bound)`);
          break;
        }
        const type = mediaType(item.mimeType);
        const name =
          item.name.length > MAX_MCP_LINK_NAME_CHARS
            ? `${item.name.slice(0, MAX_MCP_LINK_NAME_CHARS)}…`
            : item.name;
        if (!data(item.uri.length + name.length + type.length, "a resource link")) break;
        blocks.push({
          type: "data",
          id: newId(),
          source: { type: "url", url: item.uri, media_type: type },
          name,
        });
        break;
      }
    }
  }
  if (content.length > MAX_MCP_BLOCKS) {
    blocks.push(
      textBlock(`(${content.length - MAX_MCP_BLOCKS} more content items left out: over the result's bound)`),
    );
  }
  // A result with only structured content still says something to the model.
  if (blocks.length === 0 && result.structuredContent !== undefined) {
    text(JSON.stringify(result.structuredContent));
  }
  return blocks;
}
