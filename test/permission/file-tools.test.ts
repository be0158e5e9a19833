import { describe, expect, it } from "vitest";
import { readPolicy } from "../../src/permission/read-policy.js";
import { formatRule } from "../../src/permission/rules.js";
import { globPolicy, grepPolicy } from "../../src/permission/search-policy.js";
import type {
  PermissionContext,
  PermissionMode,
  PermissionSubject,
  ToolInput,
} from "../../src/permission/types.js";
import { editPolicy, writePolicy } from "../../src/permission/write-policy.js";

function ctx(mode: PermissionMode = "default", workingDirectories: string[] = []): PermissionContext {
  return {
    mode,
    cwd: "/workspace",
    home: "/home/agent",
    workingDirectories,
    rules: { allow: [], deny: [], ask: [] },
  };
}

const SUBJECTS: Record<string, PermissionSubject> = {
  Read: readPolicy(),
  Write: writePolicy(),
  Edit: editPolicy(),
  Glob: globPolicy(),
  Grep: grepPolicy(),
};
const subject = (name: string) => SUBJECTS[name] as PermissionSubject;

const passthrough = (message: string) => ({
  behavior: "passthrough",
  message,
  reason: null,
  bypassImmune: false,
});

describe("checkPermissions", () => {
  it.each<[string, ToolInput, PermissionMode, string[], object]>([
    ["Read", { file_path: "/workspace/a" }, "default", [], passthrough("File reading is read-only.")],
    [
      "Read",
      { file_path: "/home/agent/.ssh/id_rsa" },
      "accept_edits",
      [],
      passthrough("File reading is read-only."),
    ],
    ["Glob", { pattern: "**" }, "default", [], passthrough("Glob pattern matching is read-only.")],
    ["Grep", { pattern: "x", path: "/etc" }, "bypass", [], passthrough("Grep search is read-only.")],
    ["Write", {}, "accept_edits", [], passthrough("No file path provided")],
    ["Write", { file_path: "" }, "default", [], passthrough("No file path provided")],
    ["Edit", { file_path: 42 }, "default", [], passthrough("No file path provided")],
    [
      // The home a working directory, git's XDG configuration still asks (stricter than the reference).
      "Write",
      { file_path: "~/.config/git/config" },
      "accept_edits",
      ["/home/agent"],
      {
        behavior: "ask",
        message: "Permission required: Write operation on sensitive file ~/.config/git/config",
        reason: "Safety check: dangerous file or directory",
        bypassImmune: true,
      },
    ],
    [
      "Write",
      { file_path: "/workspace/.env" },
      "accept_edits",
      [],
      {
        behavior: "ask",
        message: "Permission required: Write operation on sensitive file /workspace/.env",
        reason: "Safety check: dangerous file or directory",
        bypassImmune: true,
      },
    ],
    [
      "Edit",
      { file_path: "~/.bashrc" },
      "default",
      [],
      {
        behavior: "ask",
        message: "Permission required: Edit operation on sensitive file ~/.bashrc",
        reason: "Safety check: dangerous file or directory",
        bypassImmune: true,
      },
    ],
    [
      "Write",
      { file_path: "/workspace/.git/hooks/pre-commit" },
      "bypass",
      [],
      {
        behavior: "ask",
        message: "Permission required: Write operation on sensitive file /workspace/.git/hooks/pre-commit",
        reason: "Safety check: dangerous file or directory",
        bypassImmune: true,
      },
    ],
    [
      "Write",
      { file_path: "/workspace/src/a.ts" },
      "accept_edits",
      [],
      {
        behavior: "allow",
        message:
          "Permission granted for writing /workspace/src/a.ts (accept edits mode - in working directory)",
        reason: "File is in working directory and not a dangerous path",
        bypassImmune: false,
      },
    ],
    [
      "Edit",
      { file_path: "/tmp/project/x.py" },
      "accept_edits",
      ["/tmp/project"],
      {
        behavior: "allow",
        message:
          "Permission granted for editing /tmp/project/x.py (accept edits mode - in working directory)",
        reason: "File is in working directory and not a dangerous path",
        bypassImmune: false,
      },
    ],
    ["Edit", { file_path: "/tmp/project2/x.py" }, "accept_edits", ["/tmp/project"], passthrough("")],
    ["Write", { file_path: "/workspace/../etc/passwd" }, "accept_edits", [], passthrough("")],
    ["Write", { file_path: "/workspace/src/a.ts" }, "default", [], passthrough("")],
    ["Write", { file_path: "/workspace/src/a.ts" }, "bypass", [], passthrough("")],
    [
      "Write",
      { file_path: "/etc/hosts" },
      "accept_edits",
      ["/"],
      {
        behavior: "allow",
        message: "Permission granted for writing /etc/hosts (accept edits mode - in working directory)",
        reason: "File is in working directory and not a dangerous path",
        bypassImmune: false,
      },
    ],
  ])("%s %j in %s (dirs %j)", (name, input, mode, dirs, expected) => {
    expect(subject(name).checkPermissions(input, ctx(mode, dirs))).toEqual(expected);
  });

  it("additional dangerous lists apply to Write and Edit instances", () => {
    const write = writePolicy({
      additionalDangerousFiles: ["secrets.yml"],
      additionalDangerousDirectories: ["infra"],
    });
    expect(
      write.checkPermissions({ file_path: "/workspace/secrets.yml" }, ctx("accept_edits")).behavior,
    ).toBe("ask");
    expect(
      write.checkPermissions({ file_path: "/workspace/infra/main.tf" }, ctx("accept_edits")).behavior,
    ).toBe("ask");
    expect(write.checkPermissions({ file_path: "/workspace/.env" }, ctx("accept_edits")).behavior).toBe(
      "ask",
    );
    expect(
      writePolicy().checkPermissions({ file_path: "/workspace/secrets.yml" }, ctx("accept_edits")).behavior,
    ).toBe("allow");
  });
});

describe("checkReadOnly", () => {
  it.each([
    ["Read", true],
    ["Glob", true],
    ["Grep", true],
    ["Write", false],
    ["Edit", false],
  ])("%s → %s", (name, expected) => {
    expect(subject(name).checkReadOnly({ file_path: "/workspace/a" }, ctx())).toBe(expected);
  });
});

describe("matchRule", () => {
  it.each<[string, string, ToolInput, boolean]>([
    ["Read", "**/.env", { file_path: "/workspace/app/.env" }, true],
    ["Read", "**/.env", { file_path: "/workspace/app/.env.example" }, false],
    ["Read", "/etc/**", { file_path: "/workspace/../etc/passwd" }, true],
    ["Read", "/workspace/**", { file_path: "/workspace/../etc/passwd" }, false],
    ["Read", "**", {}, false],
    ["Write", "src/**", { file_path: "/workspace/src/a.ts" }, true],
    ["Write", "src/**", { file_path: "/workspace/test/a.ts" }, false],
    ["Edit", "*.md", { file_path: "/workspace/docs/README.md" }, true],
    ["Edit", "*.md", { file_path: "/workspace/docs/README.mdx" }, false],
    ["Glob", "/workspace/**", { pattern: "**/*.ts", path: "/workspace/src" }, true],
    ["Glob", "/workspace/**", { pattern: "**/*.ts" }, true],
    ["Glob", "/workspace/**", { pattern: "*.ts", path: "/etc" }, false],
    ["Glob", "/etc/**", { pattern: "*", path: "/etc" }, true],
    ["Glob", "/etc/**", { pattern: "../etc/*" }, true],
    ["Glob", "/etc/**", { pattern: "src/*.ts" }, false],
    ["Glob", "*.ts", { pattern: "src/*.ts" }, true],
    ["Glob", "*.ts", { pattern: "src/*.js" }, false],
    ["Grep", "/workspace/**", { pattern: "TODO" }, true],
    ["Grep", "/workspace/**", { pattern: "TODO", path: "/workspace/src" }, true],
    ["Grep", "/workspace/**", { pattern: "TODO", path: "/etc" }, false],
    ["Grep", "/etc/**", { pattern: "/etc/**", path: "/workspace" }, false],
    ["Grep", "src/**", { pattern: "x", path: "src" }, true],
  ])("%s(%s) vs %j → %s", (name, content, input, expected) => {
    expect(subject(name).matchRule(content, input, ctx())).toBe(expected);
  });
});

describe("generateSuggestions", () => {
  it.each<[string, ToolInput, string[]]>([
    ["Read", { file_path: "/tmp/project/src/main.py" }, ["Read(/tmp/project/src/**)"]],
    ["Write", { file_path: "/test.py" }, ["Write(/**)"]],
    ["Edit", { file_path: "test.py" }, ["Edit(**)"]],
    ["Edit", { file_path: "src/a.py" }, ["Edit(src/**)"]],
    ["Write", { file_path: "/a//b/c.py" }, ["Write(/a//b/**)"]],
    ["Read", { file_path: "/tmp/project/../etc/passwd" }, ["Read(/tmp/project/../etc/**)"]],
    ["Read", { file_path: "" }, []],
    ["Write", {}, []],
    ["Glob", { pattern: "*.ts", path: "/workspace/src/" }, ["Glob(/workspace/src/**)"]],
    ["Glob", { pattern: "*.ts" }, ["Glob(/workspace/**)"]],
    ["Glob", { pattern: "*.ts", path: "lib" }, ["Glob(/workspace/lib/**)"]],
    ["Grep", { pattern: "x", path: "/" }, ["Grep(/**)"]],
    ["Grep", { pattern: "x" }, ["Grep(/workspace/**)"]],
    ["Grep", { pattern: "x", path: "/workspace/a/../b" }, ["Grep(/workspace/b/**)"]],
  ])("%s %j → %j", (name, input, expected) => {
    const rules = subject(name).generateSuggestions(input, ctx());
    expect(rules.map(formatRule)).toEqual(expected);
    for (const r of rules) expect(r).toMatchObject({ behavior: "allow", source: "suggested" });
  });

  it.each<[string, ToolInput]>([
    ["Read", { file_path: "/tmp/project/src/main.py" }],
    ["Write", { file_path: "src/a.py" }],
    ["Glob", { pattern: "*.ts", path: "/workspace/src" }],
    ["Grep", { pattern: "x" }],
    ["Grep", { pattern: "x", path: "/" }],
  ])("a suggestion for %s %j matches the call it was made for", (name, input) => {
    const s = subject(name);
    const [rule] = s.generateSuggestions(input, ctx());
    expect(s.matchRule(rule?.ruleContent as string, input, ctx())).toBe(true);
  });
});
