import { describe, expect, it } from "vitest";
import { expandBraces } from "../../../src/permission/bash/brace-expansion.js";

describe("expandBraces: bash's order and forms", () => {
  it.each([
    ["plain", ["plain"]],
    ["{a,b}", ["a", "b"]],
    ["{/tmp/x,}", ["/tmp/x", ""]],
    ["x{1..3}y", ["x1y", "x2y", "x3y"]],
    ["{3..1}", ["3", "2", "1"]],
    ["{a..c}", ["a", "b", "c"]],
    ["{1..10..4}", ["1", "5", "9"]],
    ["{a,b}{1,2}", ["a1", "a2", "b1", "b2"]],
    ["{a,{b,c}}", ["a", "b", "c"]],
    ["{x}{a,b}", ["{x}a", "{x}b"]],
    ["HEAD@{1}", ["HEAD@{1}"]],
    ["{a,b", ["{a,b"]],
  ])("%j → %j", (word, words) => {
    expect(expandBraces(word)).toEqual(words);
  });

  it("gives up (null) beyond 64 words", () => {
    expect(expandBraces("{1..1000}")).toBeNull();
    expect(expandBraces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toBeNull();
  });
});
