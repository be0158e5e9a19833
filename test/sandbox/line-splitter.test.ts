import { describe, expect, it } from "vitest";
import { LineSplitter, LineTooLongError } from "../../src/sandbox/line-splitter.js";

describe("LineSplitter", () => {
  it("joins lines split across chunks and splits several lines in one chunk", () => {
    const lines: string[] = [];
    const s = new LineSplitter(100, (l) => lines.push(l));
    s.push(Buffer.from('{"a":'));
    s.push(Buffer.from('1}\n{"b":2}\n{"c"'));
    s.push(Buffer.from(":3}\n"));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it("keeps a multi-byte character split between chunks intact", () => {
    const lines: string[] = [];
    const s = new LineSplitter(100, (l) => lines.push(l));
    const bytes = Buffer.from("é\n");
    s.push(bytes.subarray(0, 1));
    s.push(bytes.subarray(1));
    expect(lines).toEqual(["é"]);
  });

  it("refuses a line longer than its bound, even without a newline", () => {
    const s = new LineSplitter(8, () => {});
    s.push(Buffer.from("12345"));
    expect(() => s.push(Buffer.from("6789"))).toThrow(LineTooLongError);
  });
});
