import { describe, expect, it } from "vitest";
import { STAR, type Wildcard, wildcardMatch } from "../../src/permission/wildcard.js";

const compile = (p: string): Wildcard<string> => [...p].map((c) => (c === "*" ? STAR : c));
const matches = (p: string, text: string) => wildcardMatch(compile(p), text.length, (c, i) => c === text[i]);
const viaRegex = (p: string, text: string) =>
  new RegExp(`^${[...p].map((c) => (c === "*" ? ".*" : c)).join("")}$`, "s").test(text);

describe("wildcardMatch", () => {
  it.each<[string, string, boolean]>([
    ["", "", true],
    ["", "a", false],
    ["*", "", true],
    ["**", "abc", true],
    ["a*", "a", true],
    ["a*b", "axxb", true],
    ["a*b", "axxbc", false],
    ["*ab", "aab", true],
    ["a*a*b", "aaab", true],
    ["a*ba", "abababa", true],
    ["a*c*b", "acbcb", true],
    ["*a*a*a*a*b", "a".repeat(5000), false],
  ])("%j against %j is %s", (pattern, text, expected) => {
    expect(matches(pattern, text)).toBe(expected);
  });

  it("agrees with a backtracking regex on every small pattern and text", () => {
    const words = (n: number, alphabet: string): string[] =>
      n === 0 ? [""] : words(n - 1, alphabet).flatMap((w) => [w, ...[...alphabet].map((c) => w + c)]);
    const patterns = [...new Set(words(4, "ab*"))];
    const texts = [...new Set(words(5, "ab"))];
    for (const p of patterns)
      for (const t of texts) expect(matches(p, t), `${p} ~ ${t}`).toBe(viaRegex(p, t));
  });
});
