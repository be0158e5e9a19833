import { describe, expect, it } from "vitest";
import type { ContentBlock, ToolChunk } from "../../src/toolkit/content.js";
import {
  appendChunk,
  ChunkMergeError,
  chunk,
  createResponse,
  textChunk,
} from "../../src/toolkit/response.js";

const text = (t: string, id: string): ContentBlock => ({ type: "text", text: t, id });
const b64 = (data: string, id: string, name: string | null = null, media = "image/png"): ContentBlock => ({
  type: "data",
  id,
  source: { type: "base64", data, media_type: media },
  name,
});
const one = (block: ContentBlock, state: ToolChunk["state"] = "running"): ToolChunk =>
  chunk([block], { state });

describe("appendChunk (the chunk-merge rules)", () => {
  it("merges text chunks '1','2','3' with different ids into one text '123'", () => {
    const r = createResponse("call_1");
    for (const [t, id] of [
      ["1", "x"],
      ["2", "y"],
      ["3", "z"],
    ] as const)
      appendChunk(r, one(text(t, id)));
    expect(r.content).toEqual([text("123", "x")]);
    expect(r.id).toBe("call_1");
  });

  it("text ids a,b,b then data ids 1,2,1 give [text '123456789' (a), data 1 'abcdef', data 2]", () => {
    const r = createResponse();
    appendChunk(r, one(text("123", "a")));
    appendChunk(r, one(text("456", "b")));
    appendChunk(r, one(text("789", "b")));
    appendChunk(r, one(b64("abc", "1")));
    appendChunk(r, one(b64("zz", "2")));
    appendChunk(r, one(b64("def", "1")));
    expect(r.content).toHaveLength(3);
    expect(r.content[0]).toEqual(text("123456789", "a"));
    expect(r.content[1]).toMatchObject({ id: "1", source: { type: "base64", data: "abcdef" } });
    expect(r.content[2]).toMatchObject({ id: "2" });
  });

  it("concatenates decoded bytes of valid base64 payloads and takes newer name/media_type", () => {
    const r = createResponse();
    appendChunk(r, one(b64(Buffer.from("hello ").toString("base64"), "d", "a.png")));
    appendChunk(r, one(b64(Buffer.from("world").toString("base64"), "d", "b.png", "image/jpeg")));
    const block = r.content[0];
    expect(block?.type).toBe("data");
    if (block?.type !== "data" || block.source.type !== "base64") throw new Error("expected base64 data");
    expect(Buffer.from(block.source.data, "base64").toString()).toBe("hello world");
    expect(block.name).toBe("b.png");
    expect(block.source.media_type).toBe("image/jpeg");
  });

  it("keeps name and media_type when the newer block has empty ones", () => {
    const r = createResponse();
    appendChunk(r, one(b64("QUJD", "d", "a.png", "image/png")));
    appendChunk(r, one(b64("REVG", "d", null, "")));
    expect(r.content[0]).toMatchObject({
      name: "a.png",
      source: { media_type: "image/png", data: "QUJDREVG" },
    });
  });

  it("raises on same-id data blocks with URL or mixed sources", () => {
    const url: ContentBlock = {
      type: "data",
      id: "u",
      source: { type: "url", url: "https://x/y.png", media_type: "image/png" },
      name: null,
    };
    const r = createResponse();
    appendChunk(r, one(url));
    expect(() => appendChunk(r, one(url))).toThrow(ChunkMergeError);
    expect(() => appendChunk(r, one(b64("QUJD", "u")))).toThrow(ChunkMergeError);
  });

  it("appends a same-id block of another type under a new id", () => {
    const r = createResponse();
    appendChunk(r, one(b64("QUJD", "same")));
    appendChunk(r, one(text("t", "same")));
    expect(r.content).toHaveLength(2);
    expect(r.content[1]).toMatchObject({ type: "text", text: "t" });
    expect(r.content[1]?.id).not.toBe("same");
  });

  it("makes failure states stick (last failure wins) and never lets running/success reset them", () => {
    const r = createResponse();
    appendChunk(r, textChunk("a"));
    expect(r.state).toBe("success");
    appendChunk(r, textChunk("b", { state: "error" }));
    appendChunk(r, textChunk("c", { state: "success" }));
    appendChunk(r, textChunk("d"));
    expect(r.state).toBe("error");
    appendChunk(r, textChunk("e", { state: "denied" }));
    expect(r.state).toBe("denied");
    appendChunk(r, textChunk("f", { state: "interrupted" }));
    expect(r.state).toBe("interrupted");
  });

  it("merges metadata shallowly, later keys winning", () => {
    const r = createResponse();
    appendChunk(r, textChunk("a", { metadata: { x: 1, nested: { a: 1 } } }));
    appendChunk(r, textChunk("b", { metadata: { y: 2, nested: { b: 2 } } }));
    expect(r.metadata).toEqual({ x: 1, y: 2, nested: { b: 2 } });
  });

  it("deep-copies appended blocks", () => {
    const block = text("x", "id1");
    const r = createResponse();
    appendChunk(r, one(block));
    appendChunk(r, one(text("y", "id1")));
    expect(block).toEqual(text("x", "id1"));
  });

  it("gives chunks and blocks fresh ids", () => {
    const a = textChunk("a");
    const b = textChunk("b");
    expect(a.id).not.toBe(b.id);
    expect(a.content[0]?.id).not.toBe(b.content[0]?.id);
    expect(a).toMatchObject({ state: "running", isLast: true, metadata: {} });
  });
});
