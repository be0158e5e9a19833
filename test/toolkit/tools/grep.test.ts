import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExecRequest } from "../../../src/sandbox/sandbox.js";
import { GrepInput, GrepTool } from "../../../src/toolkit/tools/grep.js";
import { buildRgArgv, splitGlobs } from "../../../src/toolkit/tools/grep-args.js";
import { runTool } from "../run-tool.js";
import { makeContext, type TestContext } from "../test-context.js";

const grep = new GrepTool();
let t: TestContext;
afterEach(() => t?.sandbox.dispose());

/** A scripted `rg`: records each argv and prints `stdout` with `exitCode`. */
function fakeRg(
  stdout: string,
  exitCode = stdout ? 0 : 1,
  more: { stderr?: string; timedOut?: boolean } = {},
) {
  const argvs: string[][] = [];
  t.sandbox.programs.set("rg", (req: ExecRequest) => {
    argvs.push(req.argv);
    return { stdout, exitCode, ...more };
  });
  return argvs;
}

describe("Grep argv (input joined to its option, the path after --)", () => {
  const base = [
    "rg",
    "--no-config",
    "--hidden",
    "--glob",
    "!.git",
    "--glob",
    "!.svn",
    "--glob",
    "!.hg",
    "--glob",
    "!.bzr",
  ];
  const vcs = [...base, "--glob", "!.jj", "--glob", "!.sl", "--max-columns", "500"];

  it("builds the default files_with_matches command", () => {
    expect(buildRgArgv(GrepInput.parse({ pattern: "foo" }), "/w")).toEqual([
      ...vcs,
      "-l",
      "--regexp=foo",
      "--",
      "/w",
    ]);
  });

  it("adds multiline, -i, -n, context precedence, the pattern, --type and --glob in the reference order", () => {
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
      "--regexp=-x",
      "--type=ts",
      "--glob=*.ts",
      "--glob=*.tsx",
      "--glob=*.{js,jsx}",
      "--",
      "/w",
    ]);
    const ba = GrepInput.parse({ pattern: "p", output_mode: "content", n: false, "-B": 1, "-A": 3 });
    expect(buildRgArgv(ba, "/w")).toEqual([...vcs, "-B", "1", "-A", "3", "--regexp=p", "--", "/w"]);
    expect(buildRgArgv(GrepInput.parse({ pattern: "p", output_mode: "count", "-A": 3 }), "/w")).toEqual([
      ...vcs,
      "-c",
      "--regexp=p",
      "--",
      "/w",
    ]);
  });

  it("splits globs like the reference", () => {
    expect(splitGlobs("a,b  {c,d}.ts e")).toEqual(["a", "b", "{c,d}.ts", "e"]);
  });
});

describe("Grep on the fake sandbox (a scripted rg: the real one runs in search-tools.int.test.ts)", () => {
  it("searches the working directory by default (also for an empty path) and returns rg's lines", async () => {
    t = makeContext();
    const argvs = fakeRg("/w/a.txt\r\n\n/w/b.txt\n");
    const r = await runTool(grep, { pattern: "hello" }, t.ctx);
    expect(r).toMatchObject({ text: "/w/a.txt\n/w/b.txt", state: "success" });
    await runTool(grep, { pattern: "hello", path: "" }, t.ctx);
    expect(argvs.map((a) => a.slice(-2))).toEqual([
      ["--", t.sandbox.workspace],
      ["--", t.sandbox.workspace],
    ]);
  });

  it("keeps a relative path relative, expands ~, and takes ./-name as a path", async () => {
    t = makeContext();
    const argvs = fakeRg("");
    for (const path of ["src", "~/notes", "./-name"]) await runTool(grep, { pattern: "x", path }, t.ctx);
    expect(argvs.map((a) => a.slice(-2))).toEqual([
      ["--", "src"],
      ["--", join(t.sandbox.home, "notes")],
      ["--", "./-name"],
    ]);
  });

  it("refuses a path that looks like an option, and a NUL anywhere, before running anything", async () => {
    t = makeContext();
    const argvs = fakeRg("");
    for (const input of [
      { pattern: "x", path: "--pre=bash" },
      { pattern: "x", path: "-" },
      { pattern: "x\0" },
      { pattern: "x", glob: "*\0" },
      { pattern: "x", type: "\0" },
    ]) {
      const r = await runTool(grep, input, t.ctx);
      expect(r.state).toBe("error");
      expect(r.text).toMatch(/^Input validation failed for tool 'Grep': .*(starts with '-'|NUL)/);
    }
    expect(argvs).toEqual([]);
  });

  it("paginates with head_limit and offset and says so", async () => {
    t = makeContext();
    fakeRg(Array.from({ length: 10 }, (_, i) => `match ${i + 1}`).join("\n"));
    const page = await runTool(grep, { pattern: "match", head_limit: 3, offset: 2 }, t.ctx);
    expect(page.text).toBe(
      "match 3\nmatch 4\nmatch 5\n\n[Showing results with pagination = limit: 3, offset: 2]",
    );
    const first = await runTool(grep, { pattern: "match", head_limit: 4 }, t.ctx);
    expect(first.text.endsWith("\n\n[Showing results with pagination = limit: 4]")).toBe(true);
    expect((await runTool(grep, { pattern: "match", head_limit: 0 }, t.ctx)).text.split("\n")).toHaveLength(
      10,
    );
    const tail = await runTool(grep, { pattern: "match", head_limit: 3, offset: 7 }, t.ctx);
    expect(tail.text).toBe("match 8\nmatch 9\nmatch 10");
  });

  it("defaults to 250 entries", async () => {
    t = makeContext();
    fakeRg("x\n".repeat(300));
    const r = await runTool(grep, { pattern: "x" }, t.ctx);
    expect(r.text.split("\n\n")[0]?.split("\n")).toHaveLength(250);
    expect(r.text.endsWith("[Showing results with pagination = limit: 250]")).toBe(true);
  });

  it("reports no matches as success, rg errors and timeouts as errors", async () => {
    t = makeContext();
    fakeRg("", 1);
    expect(await runTool(grep, { pattern: "zzz" }, t.ctx)).toMatchObject({
      text: "No matches found for pattern: zzz",
      state: "success",
    });
    fakeRg("", 2, { stderr: "regex parse error: (" });
    expect(await runTool(grep, { pattern: "(" }, t.ctx)).toMatchObject({
      text: "ripgrep error (code 2): regex parse error: (",
      state: "error",
    });
    fakeRg("", 0, { timedOut: true });
    expect(await runTool(grep, { pattern: "x" }, t.ctx)).toMatchObject({
      text: "Ripgrep search timed out after 30 seconds. Try searching a more specific path or pattern.",
      state: "error",
    });
  });
});
