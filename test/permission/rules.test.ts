import { describe, expect, it } from "vitest";
import {
  formatRule,
  parseRule,
  parseRuleSet,
  RuleSetError,
  RuleSyntaxError,
} from "../../src/permission/rules.js";

describe("parseRule accepts", () => {
  it.each<[string, string, string | null]>([
    ["Bash", "Bash", null],
    ["Bash()", "Bash", ""],
    ["Bash(git:*)", "Bash", "git:*"],
    ["Bash(npm run:*)", "Bash", "npm run:*"],
    ["Edit(src/**)", "Edit", "src/**"],
    ["Bash(echo (a) b)", "Bash", "echo (a) b"],
    ["Bash(echo ))", "Bash", "echo )"],
    ["Bash(()", "Bash", "("],
    ["mcp__server__tool", "mcp__server__tool", null],
    ["reset_tools", "reset_tools", null],
    ["_x-y9", "_x-y9", null],
    ["Read( spaced )", "Read", " spaced "],
  ])("%s", (s, toolName, ruleContent) => {
    expect(parseRule(s, "deny", "tenant")).toEqual({
      toolName,
      ruleContent,
      behavior: "deny",
      source: "tenant",
    });
  });
});

describe("parseRule rejects", () => {
  it.each([
    ["", "Rule is empty: write `Tool`, `Tool()` or `Tool(content)`, e.g. `Bash(git:*)`"],
    ["   ", "Rule is empty: write `Tool`, `Tool()` or `Tool(content)`, e.g. `Bash(git:*)`"],
    [" Bash", 'Rule " Bash" has leading or trailing whitespace: remove it'],
    ["Bash(x) ", 'Rule "Bash(x) " has leading or trailing whitespace: remove it'],
    ["Bash(git:*", 'Rule "Bash(git:*" is missing a closing ")": write Bash(content)'],
    [
      "Bash(x)y",
      'Rule "Bash(x)y" has text after the closing ")": move "y" inside the parentheses or remove it',
    ],
    [
      "9lives",
      'Rule "9lives" has an invalid tool name "9lives": tool names match ^[A-Za-z_][A-Za-z0-9_-]*$ (e.g. Bash, Read, mcp__server__tool)',
    ],
    [
      "(x)",
      'Rule "(x)" has an invalid tool name "": tool names match ^[A-Za-z_][A-Za-z0-9_-]*$ (e.g. Bash, Read, mcp__server__tool)',
    ],
    [
      "Bash x",
      'Rule "Bash x" has an invalid tool name "Bash x": tool names match ^[A-Za-z_][A-Za-z0-9_-]*$ (e.g. Bash, Read, mcp__server__tool)',
    ],
    [
      "Bash)",
      'Rule "Bash)" has an invalid tool name "Bash)": tool names match ^[A-Za-z_][A-Za-z0-9_-]*$ (e.g. Bash, Read, mcp__server__tool)',
    ],
  ])("%j", (s, message) => {
    expect(() => parseRule(s, "allow", "t")).toThrow(new RuleSyntaxError(s, message));
    try {
      parseRule(s, "allow", "t");
    } catch (err) {
      expect(err).toBeInstanceOf(RuleSyntaxError);
      expect((err as RuleSyntaxError).rule).toBe(s);
    }
  });
});

describe("formatRule", () => {
  it.each(["Bash", "Bash()", "Bash(git:*)", "Edit(src/**)", "Bash(echo (a) b)", "mcp__s__t(x)"])(
    "round-trips %s",
    (s) => {
      expect(formatRule(parseRule(s, "allow", "t"))).toBe(s);
    },
  );
});

describe("parseRuleSet", () => {
  it("parses every list with its behavior and source", () => {
    const set = parseRuleSet({ allow: ["Read"], deny: ["Bash(rm:*)"], ask: [] }, "session");
    expect(set).toEqual({
      allow: [{ toolName: "Read", ruleContent: null, behavior: "allow", source: "session" }],
      deny: [{ toolName: "Bash", ruleContent: "rm:*", behavior: "deny", source: "session" }],
      ask: [],
    });
  });

  it("treats missing lists as empty", () => {
    expect(parseRuleSet({})).toEqual({ allow: [], deny: [], ask: [] });
  });

  it("collects every error with its field and index", () => {
    let caught: unknown;
    try {
      parseRuleSet({ allow: ["Read", "Read", "bad rule"], deny: [""], ask: ["Bash(x"] });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RuleSetError);
    expect((caught as RuleSetError).issues.map((i) => i.path)).toEqual([
      "rules.allow[2]",
      "rules.deny[0]",
      "rules.ask[0]",
    ]);
    expect((caught as RuleSetError).message).toContain(
      'rules.ask[0]: Rule "Bash(x" is missing a closing ")"',
    );
  });
});
