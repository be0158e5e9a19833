/**
 * An MCP tool's result size (attack24a): what a server answers is stored in the job row, written
 * to the job's Redis stream and sent to webhooks, so it is bounded as Bash output is: text past
 * MAX_MCP_TEXT_CHARS is cut with a mark, base64 data past MAX_MCP_DATA_CHARS is left out with a note.
 */
import { expect, it } from "vitest";
import type { ContentBlock } from "../../../src/toolkit/content.js";
import {
  MAX_MCP_BLOCKS,
  MAX_MCP_DATA_CHARS,
  MAX_MCP_LINK_NAME_CHARS,
  MAX_MCP_LINK_URI_CHARS,
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

it("many small items cannot multiply the stored size: at most MAX_MCP_BLOCKS blocks, then a note", () => {
  // An 8 MiB answer (the transports' cap) of empty images became 186,000 data blocks, each with an
  // id and fields of its own: ~20 MB stored in the job row, its stream and webhooks.
  const item = { type: "image" as const, data: "", mimeType: "image/png" };
  const content = Array.from(
    { length: Math.floor((8 * 1024 * 1024) / JSON.stringify(item).length) },
    () => item,
  );
  const blocks = mcpContentToBlocks({ content });
  expect(blocks.length).toBeLessThanOrEqual(MAX_MCP_BLOCKS + 1);
  expect(textOf(blocks)).toMatch(/more content items left out/);
  const empties = mcpContentToBlocks({ content: content.map(() => ({ type: "text" as const, text: "" })) });
  expect(empties.length).toBeLessThanOrEqual(MAX_MCP_BLOCKS + 1);
});

it("a link's URI and name and a media type count against the data bound", () => {
  const uri = `https://x.test/${"u".repeat(MAX_MCP_DATA_CHARS)}`;
  const blocks = mcpContentToBlocks({
    content: [
      { type: "resource_link", uri, name: "n" },
      { type: "image", data: "", mimeType: "m".repeat(MAX_MCP_DATA_CHARS + 1) },
    ],
  });
  expect(JSON.stringify(blocks).length).toBeLessThan(MAX_MCP_TEXT_CHARS + 1000);
  expect(textOf(blocks)).toMatch(/left out/);
});

it("a resource link's URI, name and media type are bounded (attack25a)", () => {
  const uri = `https://example.com/${"u".repeat(MAX_MCP_LINK_URI_CHARS)}`;
  const name = "n".repeat(3 * MAX_MCP_LINK_NAME_CHARS);
  const blocks = mcpContentToBlocks({
    content: [
      { type: "resource_link", uri, name: "long uri" },
      {
        type: "resource_link",
        uri: "https://example.com/a",
        name,
        mimeType: `text/${"x".repeat(1_000_000)}`,
      },
      { type: "resource_link", uri: "https://example.com/b", name: "b", mimeType: "text/plain\n<script>" },
      { type: "image", data: "AAAA", mimeType: "i".repeat(100_000) },
    ],
  });
  // The long URI is left out (cutting it would point elsewhere), with a short note.
  expect(JSON.stringify(blocks)).not.toContain("u".repeat(MAX_MCP_LINK_URI_CHARS));
  expect(textOf(blocks)).toMatch(/URI of \d+ characters left out/);
  const links = blocks.flatMap((b) => (b.type === "data" && b.source.type === "url" ? [b] : []));
  expect(links.map((b) => b.source.type === "url" && b.source.url)).toEqual([
    "https://example.com/a",
    "https://example.com/b",
  ]);
  expect(links[0]?.name?.length).toBe(MAX_MCP_LINK_NAME_CHARS + 1);
  for (const b of links) expect(b.source.media_type).toBe("application/octet-stream");
  const image = blocks.find((b) => b.type === "data" && b.source.type === "base64");
  expect(image?.type === "data" && image.source.media_type).toBe("application/octet-stream");
  expect(JSON.stringify(blocks).length).toBeLessThan(10_000);
});

it("an ordinary resource link is kept as it came", () => {
  const blocks = mcpContentToBlocks({
    content: [
      {
        type: "resource_link",
        uri: "file:///workspace/a.txt",
        name: "a.txt",
        mimeType: "text/plain; charset=utf-8",
      },
    ],
  });
  expect(blocks).toEqual([
    expect.objectContaining({
      type: "data",
      name: "a.txt",
      source: { type: "url", url: "file:///workspace/a.txt", media_type: "text/plain; charset=utf-8" },
    }),
  ]);
});
