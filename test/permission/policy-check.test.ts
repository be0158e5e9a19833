import { describe, expect, it } from "vitest";
import { runPolicyCheck } from "../../src/permission/policy-check.js";
import { readPolicy } from "../../src/permission/read-policy.js";
import { globPolicy, grepPolicy } from "../../src/permission/search-policy.js";
import type { PermissionSubject } from "../../src/permission/types.js";
import { editPolicy, writePolicy } from "../../src/permission/write-policy.js";

// The file tools only: Bash's subject belongs to the Bash analyser and is covered by the CLI test.
const SUBJECTS = new Map<string, PermissionSubject>(
  [readPolicy(), writePolicy(), editPolicy(), globPolicy(), grepPolicy()].map((s) => [s.name, s]),
);

describe("runPolicyCheck answers", () => {
  it.each<[string, object, object]>([
    [
      "defaults: Read asks in default mode",
      { tool: "Read", input: { file_path: "/workspace/a.ts" } },
      {
        behavior: "ask",
        bypassImmune: false,
        message: "Permission required for Read",
        reason: "Mode: default",
        suggestions: ["Read(/workspace/**)"],
        tool: { behavior: "passthrough", bypassImmune: false, message: "File reading is read-only." },
        readOnly: true,
        toolSuggestions: ["Read(/workspace/**)"],
      },
    ],
    [
      "a safety ASK with a rule to test",
      {
        tool: "Write",
        input: { file_path: "/workspace/.env" },
        mode: "accept_edits",
        rule: "Write(/workspace/**)",
      },
      {
        behavior: "ask",
        bypassImmune: true,
        message: "Permission required: Write operation on sensitive file /workspace/.env",
        reason: "Safety check: dangerous file or directory",
        suggestions: ["Write(/workspace/**)"],
        tool: {
          behavior: "ask",
          bypassImmune: true,
          message: "Permission required: Write operation on sensitive file /workspace/.env",
        },
        readOnly: false,
        toolSuggestions: ["Write(/workspace/**)"],
        match: true,
      },
    ],
    [
      "an allow rule and a non-matching rule",
      {
        tool: "Edit",
        input: { file_path: "/srv/app/main.ts" },
        rules: { allow: ["Edit(/srv/**)"] },
        cwd: "/srv",
        rule: "Edit(*.py)",
      },
      {
        behavior: "allow",
        bypassImmune: false,
        message: "Permission granted for Edit",
        reason: null,
        suggestions: null,
        tool: { behavior: "passthrough", bypassImmune: false, message: "" },
        readOnly: false,
        toolSuggestions: ["Edit(/srv/app/**)"],
        match: false,
      },
    ],
    [
      "a deny rule wins over explore's read-only allow",
      {
        tool: "Grep",
        input: { pattern: "x", path: "/etc" },
        mode: "explore",
        rules: { deny: ["Grep(/etc/**)"] },
      },
      {
        behavior: "deny",
        bypassImmune: false,
        message: "Permission to use Grep has been denied",
        reason: "Rule: /etc/**",
        suggestions: null,
        tool: { behavior: "passthrough", bypassImmune: false, message: "Grep search is read-only." },
        readOnly: true,
        toolSuggestions: ["Grep(/etc/**)"],
      },
    ],
    [
      "dont_ask denies Glob without an allow rule; a rule for another tool does not match",
      { tool: "Glob", input: { pattern: "*.ts" }, mode: "dont_ask", rule: "Read" },
      {
        behavior: "deny",
        bypassImmune: false,
        message: "Permission denied for Glob (dont_ask mode - user not available)",
        reason: "User is not available to answer permission prompts",
        suggestions: null,
        tool: {
          behavior: "passthrough",
          bypassImmune: false,
          message: "Glob pattern matching is read-only.",
        },
        readOnly: true,
        toolSuggestions: ["Glob(/workspace/**)"],
        match: false,
      },
    ],
    [
      "working directories and home are used",
      {
        tool: "Write",
        input: { file_path: "~/proj/a.txt" },
        mode: "accept_edits",
        workingDirectories: ["~/proj"],
        home: "/home/u",
        rule: "Write",
      },
      {
        behavior: "allow",
        message: "Permission granted for writing ~/proj/a.txt (accept edits mode - in working directory)",
        tool: { behavior: "allow" },
        match: true,
      },
    ],
  ])("%s", (_name, request, expected) => {
    expect(runPolicyCheck(request, SUBJECTS)).toMatchObject(expected);
  });

  it("leaves out match when no rule is given", () => {
    expect(runPolicyCheck({ tool: "Read", input: {} }, SUBJECTS)).not.toHaveProperty("match");
  });
});

describe("runPolicyCheck validation", () => {
  it.each<[string, unknown, { path: string; message: string }[]]>([
    [
      "unknown tool",
      { tool: "Nope", input: {} },
      [{ path: "tool", message: 'Unknown tool "Nope"; known tools: Edit, Glob, Grep, Read, Write' }],
    ],
    [
      "bad rule strings",
      { tool: "Read", input: {}, rules: { allow: ["Read", "Read(x"], ask: [" Bash"] }, rule: "" },
      [
        { path: "rules.allow[1]", message: 'Rule "Read(x" is missing a closing ")": write Read(content)' },
        { path: "rules.ask[0]", message: 'Rule " Bash" has leading or trailing whitespace: remove it' },
        {
          path: "rule",
          message: "Rule is empty: write `Tool`, `Tool()` or `Tool(content)`, e.g. `Bash(git:*)`",
        },
      ],
    ],
    [
      "relative cwd",
      { tool: "Read", input: {}, cwd: "workspace" },
      [{ path: "cwd", message: "must be an absolute path (start with /)" }],
    ],
  ])("%s", (_name, request, details) => {
    const answer = runPolicyCheck(request, SUBJECTS);
    expect(answer).toEqual({
      error: {
        code: "VALIDATION",
        message: `Invalid policy check: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`,
        details,
      },
    });
  });

  it.each<[string, unknown, string[]]>([
    ["not an object", [1, 2], [""]],
    ["missing tool and input", {}, ["tool", "input"]],
    ["input not an object", { tool: "Read", input: "x" }, ["input"]],
    ["unknown mode", { tool: "Read", input: {}, mode: "yolo" }, ["mode"]],
    ["rules entry not a string", { tool: "Read", input: {}, rules: { deny: [1] } }, ["rules.deny[0]"]],
    [
      "unknown fields",
      { tool: "Read", input: {}, workingDirectory: "/x", rules: { allowed: [] } },
      ["rules.allowed", "workingDirectory"],
    ],
    [
      "workingDirectories not a list",
      { tool: "Read", input: {}, workingDirectories: "/x" },
      ["workingDirectories"],
    ],
  ])("schema: %s", (_name, request, paths) => {
    const answer = runPolicyCheck(request, SUBJECTS);
    expect(answer).toHaveProperty("error.code", "VALIDATION");
    if (!("error" in answer)) throw new Error("expected an error");
    expect(answer.error.details.map((d) => d.path)).toEqual(paths);
    expect(answer.error.message).toMatch(/^Invalid policy check: /);
  });
});
