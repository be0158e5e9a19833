/** The text helpers of Read, Write and Edit: decoding (one decoder shared by every call). */
import { describe, expect, it } from "vitest";
import { decodeUtf8 } from "../../../src/toolkit/tools/text-lines.js";

describe("decodeUtf8", () => {
  it("turns invalid bytes into U+FFFD", () => {
    expect(decodeUtf8(Buffer.from([0x61, 0xff, 0x62]))).toBe("a\uFFFDb");
  });

  it("keeps nothing from one call to the next: a sequence cut at the end of one file is not completed by the next", () => {
    // "€" is E2 82 AC: a file ending in its first two bytes, then one starting with the third.
    expect(decodeUtf8(Buffer.from([0x61, 0xe2, 0x82]))).toBe("a\uFFFD");
    expect(decodeUtf8(Buffer.from([0xac, 0x62]))).toBe("\uFFFDb");
    expect(decodeUtf8(Buffer.from("€", "utf8"))).toBe("€");
  });
});
