import { describe, expect, it } from "vitest";
import { BRACE, GLOB, LEADING_GLOB, wordShape } from "../../../src/permission/bash/word-shape.js";

describe("wordShape: what brace and pathname expansion can do to a word", () => {
  it.each([
    ["plain", 0],
    ["src/*.ts", GLOB],
    ["*.ts", GLOB | LEADING_GLOB],
    ["-delet[e]", GLOB],
    ["?pre", GLOB | LEADING_GLOB],
    ['""*', GLOB | LEADING_GLOB],
    ["''[-]x", GLOB | LEADING_GLOB],
    ['"*.ts"', 0],
    ["'*.ts'", 0],
    ["\\*.ts", 0],
    ["$'*'", 0],
    ['a"*"', 0],
    ['"a"*', GLOB],
    ["{a,b}", BRACE],
    ["{--output=/tmp/x,}", BRACE],
    ["x{1..3}", BRACE],
    ["{a,{b,c}}", BRACE],
    ['{"a,b"}', 0],
    ["'{a,b}'", 0],
    ["\\{a,b}", 0],
    ["{a\\,b}", 0],
    ["HEAD@{1}", 0],
    ["@{u}..HEAD", 0],
    ["{}", 0],
    ["{x}", 0],
    ["{a,b", 0],
    ["\u0024{a,b}", 0],
    ["{*,x}", BRACE | GLOB | LEADING_GLOB],
  ])("%j → %i", (raw, shape) => {
    expect(wordShape(raw)).toBe(shape);
  });
});
