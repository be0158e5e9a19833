import { describe, expect, it } from "vitest";
import { parseToolArguments, repairJson } from "../../src/toolkit/json-args.js";

describe("parseToolArguments", () => {
  it.each([
    ['{"a": 1', { a: 1 }],
    ['{"a": "unterminated', { a: "unterminated" }],
    ['{"a": [1, 2,', { a: [1, 2] }],
    ['{"a": 1,}', { a: 1 }],
    ["", {}],
  ])("repairs %j", (raw, expected) => {
    expect(parseToolArguments(raw)).toEqual({ ok: true, input: expected });
  });

  it("passes objects through and rejects non-objects with the reminder", () => {
    expect(parseToolArguments({ x: 1 })).toEqual({ ok: true, input: { x: 1 } });
    const r = parseToolArguments('"text"');
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.reminder).toContain("decoded into a <class 'str'> object, but a dict object is expected!");
  });

  it("quotes the input as a Python repr", () => {
    const r = parseToolArguments('["it\'s"]');
    if (r.ok) throw new Error("expected failure");
    expect(r.reminder).toContain(`your_tool_arguments = '["it\\'s"]'`);
  });

  it("leaves valid JSON alone", () => {
    expect(repairJson('{"a":"b"}')).toBe('{"a":"b"}');
  });

  it("never changes the contents of complete strings", () => {
    expect(parseToolArguments('{"a": "x, ]", "b": "{[,}", "c": 1,}')).toEqual({
      ok: true,
      input: { a: "x, ]", b: "{[,}", c: 1 },
    });
    expect(parseToolArguments('{"cmd": "echo \\"a, }\\"", "n": [1,')).toEqual({
      ok: true,
      input: { cmd: 'echo "a, }"', n: [1] },
    });
  });

  it("quotes bare keys but does not turn a bare word into a string value", () => {
    expect(parseToolArguments('{n: 1, "m": true}')).toEqual({ ok: true, input: { n: 1, m: true } });
    expect(parseToolArguments('{"n": undefined}').ok).toBe(false);
    expect(parseToolArguments("rm -rf /").ok).toBe(false);
  });
});
