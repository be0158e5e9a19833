import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GrepInput, GrepTool } from "../../../src/toolkit/tools/grep.js";
import { buildRgArgv, splitGlobs } from "../../../src/toolkit/tools/grep-args.js";
import { runTool } from "../run-tool.js";
import { makeContext, type TestContext } from "../test-context.js";

const grep = new GrepTool();
let t: TestContext;
afterEach(() => t?.sandbox.dispose());

function file(rel: string, content: string): string {
  const p = join(t.sandbox.workspace, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, content);
  return p;
}

describe("Grep argv (reference §11.7)", () => {
  const base = ["rg", "--hidden", "--glob", "!.git", "--glob", "!.svn", "--glob", "!.hg", "--glob", "!.bzr"];
  const vcs = [...base, "--glob", "!.jj", "--glob", "!.sl", "--max-columns", "500"];

  it("builds the default files_with_matches command", () => {
    expect(buildRgArgv(GrepInput.parse({ pattern: "foo" }), "/w")).toEqual([...vcs, "-l", "foo", "/w"]);
  });

  it("adds multiline, -i, -n, context precedence, -e, --type and --glob in the reference order", () => {
    const input = GrepInput.parse({
      pattern: "-x",
      output_mode: "content",
      multiline: true,
      case_insensitive: true,
      context: 2,
      "-C": 5,
      "-A": 1,
      type: "ts",
      glob: "*.ts,*.tsx *.{js,jsx}",
    });
    expect(buildRgArgv(input, "/w")).toEqual([
      ...vcs,
      "-U",
      "--multiline-dotall",
      "-i",
      "-n",
      "-C",
      "2",
      "-e",
      "-x",
      "--type",
      "ts",
      "--glob",
      "*.ts",
      "--glob",
      "*.tsx",
      "--glob",
      "*.{js,jsx}",
      "/w",
    ]);
    const ba = GrepInput.parse({ pattern: "p", output_mode: "content", n: false, "-B": 1, "-A": 3 });
    expect(buildRgArgv(ba, "/w")).toEqual([...vcs, "-B", "1", "-A", "3", "p", "/w"]);
    expect(buildRgArgv(GrepInput.parse({ pattern: "p", output_mode: "count", "-A": 3 }), "/w")).toEqual([
      ...vcs,
      "-c",
      "p",
      "/w",
    ]);
  });

  it("splits globs like the reference", () => {
    expect(splitGlobs("a,b  {c,d}.ts e")).toEqual(["a", "b", "{c,d}.ts", "e"]);
  });
});

describe("Grep on the fake sandbox", () => {
  it("lists matching files under the session's working directory by default (success state)", async () => {
    t = makeContext();
    const a = file("a.txt", "hello world\n");
    file("b.txt", "nothing\n");
    file(".git/config", "hello\n");
    const r = await runTool(grep, { pattern: "hello" }, t.ctx);
    expect(r).toMatchObject({ text: a, state: "success" });
  });

  it("shows content with line numbers, and line:text for a single file", async () => {
    t = makeContext();
    const a = file("a.txt", "one\nTwo\nthree two\n");
    expect((await runTool(grep, { pattern: "two", output_mode: "content", i: true }, t.ctx)).text).toBe(
      `${a}:2:Two\n${a}:3:three two`,
    );
    expect((await runTool(grep, { pattern: "two", path: a, output_mode: "content" }, t.ctx)).text).toBe(
      "3:three two",
    );
    expect((await runTool(grep, { pattern: "e", path: a, output_mode: "count" }, t.ctx)).text).toBe("2");
  });

  it("paginates with head_limit and offset and says so", async () => {
    t = makeContext();
    const p = file("n.txt", `${Array.from({ length: 10 }, (_, i) => `match ${i + 1}`).join("\n")}\n`);
    const page = await runTool(
      grep,
      { pattern: "match", path: p, output_mode: "content", head_limit: 3, offset: 2 },
      t.ctx,
    );
    expect(page.text).toBe(
      "3:match 3\n4:match 4\n5:match 5\n\n[Showing results with pagination = limit: 3, offset: 2]",
    );
    const first = await runTool(
      grep,
      { pattern: "match", path: p, output_mode: "content", head_limit: 4 },
      t.ctx,
    );
    expect(first.text.endsWith("\n\n[Showing results with pagination = limit: 4]")).toBe(true);
    const all = await runTool(
      grep,
      { pattern: "match", path: p, output_mode: "content", head_limit: 0 },
      t.ctx,
    );
    expect(all.text.split("\n")).toHaveLength(10);
    const tail = await runTool(
      grep,
      { pattern: "match", path: p, output_mode: "content", head_limit: 3, offset: 7 },
      t.ctx,
    );
    expect(tail.text).toBe("8:match 8\n9:match 9\n10:match 10");
  });

  it("defaults to 250 entries", async () => {
    t = makeContext();
    const p = file("big.txt", "x\n".repeat(300));
    const r = await runTool(grep, { pattern: "x", path: p, output_mode: "content" }, t.ctx);
    expect(r.text.split("\n\n")[0]?.split("\n")).toHaveLength(250);
    expect(r.text.endsWith("[Showing results with pagination = limit: 250]")).toBe(true);
  });

  it("reports no matches as success and ripgrep errors as errors", async () => {
    t = makeContext();
    file("a.txt", "abc\n");
    expect(await runTool(grep, { pattern: "zzz" }, t.ctx)).toMatchObject({
      text: "No matches found for pattern: zzz",
      state: "success",
    });
    const bad = await runTool(grep, { pattern: "(" }, t.ctx);
    expect(bad.state).toBe("error");
    expect(bad.text).toMatch(/^ripgrep error \(code 2\): regex parse error/);
  });
});
