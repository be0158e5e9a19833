import { describe, expect, it } from "vitest";
import { checkPermission } from "../../src/permission/engine.js";
import { fakeContext as ctx, fakeSubject } from "./fake-subject.js";

const INPUT = { arg: "value" };

describe("checkPermission: rule lookup", () => {
  it.each([
    [
      "null content matches every call",
      [],
      { deny: ["Fake"] },
      { behavior: "deny", reason: "Rule: None", rule: "Fake" },
    ],
    [
      "empty content matches every call",
      [],
      { deny: ["Fake()"] },
      { behavior: "deny", reason: "Rule: ", rule: "Fake()" },
    ],
    [
      "a rule for another tool never applies",
      ["x"],
      { deny: ["Other"], allow: ["Other(x)"] },
      { reason: "Mode: default" },
    ],
    [
      "the first matching deny rule is reported",
      ["x"],
      { deny: ["Fake(y)", "Fake(x)", "Fake"] },
      { rule: "Fake(x)" },
    ],
    ["a tool-level ask rule", [], { ask: ["Fake"] }, { behavior: "ask", reason: "Rule: None", rule: "Fake" }],
    [
      "a tool-level allow rule",
      [],
      { allow: ["Fake"] },
      { behavior: "allow", rule: "Fake", updatedInput: INPUT },
    ],
    [
      "the first matching allow rule is reported",
      ["x", "y"],
      { allow: ["Fake(z)", "Fake(y)", "Fake(x)"] },
      { rule: "Fake(y)" },
    ],
  ] as const)("%s", (_name, matches, rules, expected) => {
    const decision = checkPermission(fakeSubject({ matches }), INPUT, ctx("default", { ...rules }));
    expect(decision).toMatchObject(expected);
  });

  it("the same input object is returned as updatedInput", () => {
    const decision = checkPermission(fakeSubject(), INPUT, ctx("default", { allow: ["Fake(x)"] }));
    expect(decision.updatedInput).toBe(INPUT);
  });
});

describe("checkPermission: set-level allow matching", () => {
  it.each([
    [
      "matcher declines although matchRule would match",
      undefined,
      { behavior: "ask", reason: "Mode: default" },
    ],
    ["matcher returns the deciding rule", "second", { behavior: "allow", rule: "Fake(y)" }],
  ] as const)("%s", (_name, pick, expected) => {
    const subject = fakeSubject({
      matches: ["x", "y"],
      matchAllowRules: (rules) => (pick === "second" ? rules[1] : undefined),
    });
    expect(checkPermission(subject, INPUT, ctx("default", { allow: ["Fake(x)", "Fake(y)"] }))).toMatchObject(
      expected,
    );
  });

  it("passes only this tool's content rules to the matcher; a tool-level rule wins first", () => {
    const seen: string[][] = [];
    const subject = fakeSubject({
      matchAllowRules: (rules) => {
        seen.push(rules.map((r) => `${r.toolName}(${r.ruleContent})`));
        return undefined;
      },
    });
    checkPermission(subject, INPUT, ctx("default", { allow: ["Other(x)", "Fake(x)"] }));
    expect(seen).toEqual([["Fake(x)"]]);
    expect(checkPermission(subject, INPUT, ctx("default", { allow: ["Fake(x)", "Fake"] }))).toMatchObject({
      behavior: "allow",
      rule: "Fake",
    });
    expect(seen).toHaveLength(1);
  });
});

describe("checkPermission: when the tool's own check runs", () => {
  it.each([
    ["explore", false, 0],
    ["explore", true, 0],
    ["accept_edits", true, 0],
    ["accept_edits", false, 1],
    ["default", true, 1],
    ["bypass", true, 1],
    ["dont_ask", true, 1],
  ] as const)("%s with readOnly=%s calls checkPermissions %i time(s)", (m, readOnly, calls) => {
    const subject = fakeSubject({ readOnly });
    checkPermission(subject, INPUT, ctx(m));
    expect(subject.calls).toBe(calls);
  });
});
