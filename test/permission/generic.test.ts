import { describe, expect, it } from "vitest";
import { checkPermission } from "../../src/permission/engine.js";
import { type GenericPolicyOptions, genericPolicy } from "../../src/permission/generic.js";
import type { PermissionContext } from "../../src/permission/types.js";

const CTX: PermissionContext = {
  mode: "default",
  cwd: "/workspace",
  home: "/home/agent",
  workingDirectories: [],
  rules: { allow: [], deny: [], ask: [] },
};

describe("genericPolicy", () => {
  it.each<[string, GenericPolicyOptions, string, string, string]>([
    ["TaskCreate", { kind: "always_allow" }, "allow", "TaskCreate is always allowed.", "allow"],
    ["reset_tools", { kind: "always_allow" }, "allow", "reset_tools is always allowed.", "allow"],
    ["Skill", { kind: "always_allow", readOnly: true }, "allow", "Skill is always allowed.", "allow"],
    ["HumanApproval", { kind: "external" }, "allow", "HumanApproval is always allowed.", "allow"],
    [
      "my_fn",
      { kind: "function" },
      "ask",
      "Custom function tools must be explicitly allowed by the user.",
      "ask",
    ],
    [
      "mcp__s__read",
      { kind: "mcp", readOnly: true },
      "allow",
      "This is a read-only MCP tool. Allowing execution.",
      "allow",
    ],
    ["mcp__s__write", { kind: "mcp" }, "ask", "MCP tools must be explicitly allowed by the user.", "ask"],
  ])("%s (%j): own %s %j, engine %s", (name, opts, behavior, message, engine) => {
    const subject = genericPolicy(name, opts);
    expect(subject.checkPermissions({}, CTX)).toEqual({
      behavior,
      message,
      reason: null,
      bypassImmune: false,
    });
    const decision = checkPermission(subject, {}, CTX);
    expect(decision.behavior).toBe(engine);
    // A non-immune ASK is PASSTHROUGH for the engine: it ends in the default ASK.
    if (engine === "ask")
      expect(decision).toMatchObject({ message: `Permission required for ${name}`, reason: "Mode: default" });
  });

  it("suggests one tool-level rule and never matches content rules", () => {
    const subject = genericPolicy("my_fn", { kind: "function" });
    expect(subject.generateSuggestions({}, CTX)).toEqual([
      { toolName: "my_fn", ruleContent: null, behavior: "allow", source: "suggested" },
    ]);
    expect(subject.matchRule("anything", {}, CTX)).toBe(false);
    expect(subject.checkReadOnly({}, CTX)).toBe(false);
    expect(genericPolicy("Skill", { kind: "always_allow", readOnly: true }).checkReadOnly({}, CTX)).toBe(
      true,
    );
  });

  it("a tool-level allow rule allows a function tool", () => {
    const subject = genericPolicy("my_fn", { kind: "function" });
    const rules = {
      ...CTX.rules,
      allow: [{ toolName: "my_fn", ruleContent: null, behavior: "allow" as const, source: "t" }],
    };
    expect(checkPermission(subject, {}, { ...CTX, rules })).toMatchObject({
      behavior: "allow",
      rule: "my_fn",
    });
  });
});
