import { describe, expect, it } from "vitest";
import { builtinSubjects } from "../../src/permission/builtins.js";
import { checkPermission } from "../../src/permission/engine.js";
import type { RuleStrings } from "../../src/permission/rules.js";
import type { PermissionMode, ToolInput } from "../../src/permission/types.js";
import { fakeContext } from "./fake-subject.js";

const SUBJECTS = builtinSubjects();

function decide(tool: string, input: ToolInput, mode: PermissionMode, rules: RuleStrings = {}) {
  const subject = SUBJECTS.get(tool);
  if (!subject) throw new Error(`no ${tool}`);
  return checkPermission(subject, input, fakeContext(mode, rules));
}

describe("file rules through the engine: an allow and a deny case per shape", () => {
  it.each<[string, string, string, ToolInput, "allow" | "deny" | "ask"]>([
    ["basename", "Read(*.md)", "Read", { file_path: "/workspace/docs/a.md" }, "allow"],
    ["basename", "Read(*.md)", "Read", { file_path: "/workspace/docs/a.mdx" }, "ask"],
    ["globstar basename", "Read(**/.env)", "Read", { file_path: "/home/agent/app/.env" }, "allow"],
    ["anchored relative", "Edit(src/**)", "Edit", { file_path: "/workspace/src/a.ts" }, "allow"],
    ["anchored relative", "Edit(src/**)", "Edit", { file_path: "/other/src/a.ts" }, "ask"],
    ["absolute globstar", "Write(/workspace/**)", "Write", { file_path: "/workspace/a/b/c.txt" }, "allow"],
    ["traversal", "Write(/workspace/**)", "Write", { file_path: "/workspace/../etc/passwd" }, "ask"],
    ["single segment", "Write(/workspace/*)", "Write", { file_path: "/workspace/a/b.txt" }, "ask"],
    ["class", "Write(/workspace/[!.]*)", "Write", { file_path: "/workspace/notes.txt" }, "allow"],
    ["class", "Write(/workspace/[!.]*)", "Write", { file_path: "/workspace/.hidden" }, "ask"],
    ["Glob path", "Glob(/workspace/**)", "Glob", { pattern: "**/*.ts", path: "/workspace/src" }, "allow"],
    ["Glob path", "Glob(/workspace/**)", "Glob", { pattern: "*", path: "/etc" }, "ask"],
    ["Grep cwd", "Grep(/workspace/**)", "Grep", { pattern: "TODO" }, "allow"],
    ["Grep path", "Grep(/workspace/**)", "Grep", { pattern: "root", path: "/etc" }, "ask"],
  ])("allow %s: %s vs %s %j → %s", (_shape, rule, tool, input, expected) => {
    expect(decide(tool, input, "default", { allow: [rule] }).behavior).toBe(expected);
  });

  it.each<[string, string, string, ToolInput, "deny" | "allow"]>([
    ["basename", "Read(.env)", "Read", { file_path: "/workspace/deep/.env" }, "deny"],
    ["basename", "Read(.env)", "Read", { file_path: "/workspace/deep/.env.example" }, "allow"],
    ["globstar basename", "Read(**/*.pem)", "Read", { file_path: "/etc/ssl/private/key.pem" }, "deny"],
    ["home", "Read(~/.ssh/**)", "Read", { file_path: "/home/agent/.ssh/id_rsa" }, "deny"],
    ["traversal", "Read(/etc/**)", "Read", { file_path: "/workspace/../etc/shadow" }, "deny"],
    ["traversal", "Read(/etc/**)", "Read", { file_path: "/workspace/etc/shadow" }, "allow"],
    ["relative path", "Write(/workspace/build/**)", "Write", { file_path: "build/out.js" }, "deny"],
    ["anchored relative", "Edit(vendor/**)", "Edit", { file_path: "/workspace/vendor/x.js" }, "deny"],
    ["anchored relative", "Edit(vendor/**)", "Edit", { file_path: "/workspace/src/vendor/x.js" }, "allow"],
    ["Glob pattern escape", "Glob(/etc/**)", "Glob", { pattern: "../etc/*" }, "deny"],
    ["Grep path", "Grep(/etc/**)", "Grep", { pattern: "x", path: "/etc/ssh" }, "deny"],
  ])("deny %s: %s vs %s %j → %s (in bypass)", (_shape, rule, tool, input, expected) => {
    expect(decide(tool, input, "bypass", { deny: [rule] }).behavior).toBe(expected);
  });
});

describe("file tools through the engine", () => {
  const READ_ONLY: [string, ToolInput][] = [
    ["Read", { file_path: "/home/agent/.ssh/id_rsa" }],
    ["Glob", { pattern: "**" }],
    ["Grep", { pattern: "x", path: "/" }],
  ];
  it.each<[PermissionMode, string]>([
    ["default", "ask"],
    ["accept_edits", "allow"],
    ["explore", "allow"],
    ["bypass", "allow"],
    ["dont_ask", "deny"],
  ])("Read/Glob/Grep in %s → %s", (mode, expected) => {
    for (const [tool, input] of READ_ONLY) expect(decide(tool, input, mode).behavior).toBe(expected);
  });

  it.each<[string, PermissionMode, RuleStrings, ToolInput, object]>([
    [
      "Write",
      "explore",
      {},
      { file_path: "/workspace/a" },
      { behavior: "deny", reason: "Explore mode does not allow modifications" },
    ],
    [
      "Write",
      "explore",
      { ask: ["Write"] },
      { file_path: "/workspace/a" },
      { behavior: "ask", reason: "Rule: None" },
    ],
    ["Edit", "explore", { allow: ["Edit"] }, { file_path: "/workspace/a" }, { behavior: "deny" }],
    ["Write", "accept_edits", {}, { file_path: "/workspace/a" }, { behavior: "allow", decidedBy: "tool" }],
    [
      "Write",
      "accept_edits",
      {},
      { file_path: "/tmp/a" },
      { behavior: "ask", reason: "Mode: accept_edits", suggestions: ["Write(/tmp/**)"] },
    ],
    [
      "Write",
      "default",
      { allow: ["Write(/workspace/**)"] },
      { file_path: "/workspace/.env" },
      { behavior: "ask", bypassImmune: true },
    ],
    [
      "Edit",
      "bypass",
      {},
      { file_path: "/workspace/.git/config" },
      { behavior: "allow", reason: "Bypass mode allows all operations" },
    ],
    [
      "Edit",
      "dont_ask",
      {},
      { file_path: "/workspace/.git/config" },
      {
        behavior: "deny",
        reason:
          "DONT_ASK mode converted ASK to DENY. Original reason: Safety check: dangerous file or directory",
        suggestions: ["Edit(/workspace/.git/**)"],
      },
    ],
    [
      "Read",
      "dont_ask",
      { allow: ["Read(/workspace/**)"] },
      { file_path: "/workspace/a" },
      { behavior: "allow", rule: "Read(/workspace/**)" },
    ],
  ])("%s in %s with %j: %j", (tool, mode, rules, input, expected) => {
    expect(decide(tool, input, mode, rules)).toMatchObject(expected);
  });
});
