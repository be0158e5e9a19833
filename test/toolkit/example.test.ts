import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The example's standard output, run as a reader of docs/toolkit.md would run it. */
async function runExample(file: string): Promise<string> {
  const { stdout } = await promisify(execFile)("npx", ["tsx", file], { cwd: root, timeout: 60_000 });
  return stdout;
}

describe("examples/function-tool.ts (the library example in docs/toolkit.md)", () => {
  it("builds a Toolkit with a FunctionTool and a logging middleware and runs one call", async () => {
    const lines = (await runExample("examples/function-tool.ts")).trim().split("\n");
    expect(JSON.parse(lines[0] ?? "")[0].function.name).toBe("add");
    expect(lines[1]).toBe('[log] -> add {"a":40,"b":2}');
    expect(lines[2]).toMatch(/^\[log\] <- add 1 chunk\(s\) in \d+ ms$/);
    expect(lines[3]).toBe("call_1 success: 40 + 2 = 42");
  }, 60_000);
});

describe("examples/skills-folder.ts (the skills-folder example in docs/toolkit.md)", () => {
  it("loads examples/skills with the local loader, lists the fragment and views a nested skill", async () => {
    const skills = join(root, "examples/skills");
    const out = await runExample("examples/skills-folder.ts");
    const lines = out.trim().split("\n");
    expect(lines.slice(0, 2)).toEqual(["skills: commit-message, release-notes", "tools: Skill"]);
    expect(out).toContain(
      "<skill>\n<name>commit-message</name>\n<description>Write a commit message for the staged changes in a git repository.</description>\n" +
        `<dir>${skills}/commit-message</dir>\n</skill><skill>\n<name>release-notes</name>\n` +
        "<description>Draft release notes from the commits since the last tag, grouped into features, fixes and other changes.</description>\n" +
        `<dir>${skills}/writing/release-notes</dir>\n</skill>\n</agent-skills>\n`,
    );
    expect(out.slice(out.indexOf("--- Skill"))).toBe(
      [
        "--- Skill(release-notes): success",
        "# Release notes",
        "",
        "1. Find the last tag with `git describe --tags --abbrev=0`.",
        "2. List the commits since then with `git log --oneline <tag>..HEAD`.",
        "3. Fill in `template.md` from this skill's directory, one line per user-visible change.",
        "",
      ].join("\n"),
    );
  }, 60_000);
});
