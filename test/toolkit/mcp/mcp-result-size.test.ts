/**
 * An MCP tool's result size (attack24a): what a server answers is stored in the job row, written
 * to the job's Redis stream and sent to webhooks, so it is bounded as Bash output is: text past
 * MAX_MCP_TEXT_CHARS is cut with a mark, base64 data past MAX_MCP_DATA_CHARS is left out with a note.
 */
import { expect, it } from "vitest";
import type { ContentBlock } from "../../../src/toolkit/content.js";
import {
  MAX_MCP_DATA_CHARS,
  MAX_MCP_TEXT_CHARS,
  mcpContentToBlocks,
} from "../../../src/toolkit/mcp/convert.js";

const textOf = (blocks: ContentBlock[]) => blocks.map((b) => (b.type === "text" ? b.text : "")).join("");

it("text past the bound is cut, with a mark saying so", () => {
  const piece = "a".repeat(Math.ceil(MAX_MCP_TEXT_CHARS / 3));
  const blocks = mcpContentToBlocks({
    content: Array.from({ length: 5 }, () => ({ type: "text", text: piece })),
  });
  const text = textOf(blocks);
  expect(text.length).toBeLessThan(MAX_MCP_TEXT_CHARS + 200);
  expect(text).toMatch(/output truncated/);
});

it("a resource's or structured content's text counts too", () => {
  const big = "b".repeat(2 * MAX_MCP_TEXT_CHARS);
  const fromResource = mcpContentToBlocks({
    content: [{ type: "resource", resource: { uri: "file:///x", text: big } }],
  });
  expect(textOf(fromResource).length).toBeLessThan(MAX_MCP_TEXT_CHARS + 200);
  const structured = mcpContentToBlocks({ content: [], structuredContent: { big } });
  expect(textOf(structured).length).toBeLessThan(MAX_MCP_TEXT_CHARS + 200);
});

it("images past the data bound are left out with a note; those within it stay whole", () => {
  const data = "A".repeat(Math.ceil(MAX_MCP_DATA_CHARS / 2) - 10);
  const blocks = mcpContentToBlocks({
    content: [1, 2, 3].map(() => ({ type: "image" as const, data, mimeType: "image/png" })),
  });
  const kept = blocks.filter((b) => b.type === "data");
  expect(kept).toHaveLength(2);
  for (const b of kept) expect(b).toMatchObject({ source: { data } });
  expect(textOf(blocks)).toMatch(/image\/png.*left out/);
});

it("a small result is unchanged", () => {
  expect(textOf(mcpContentToBlocks({ content: [{ type: "text", text: "hello" }] }))).toBe("hello");
});
