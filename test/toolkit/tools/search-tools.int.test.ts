/**
 * Grep and Glob against the programs they really run (ripgrep, the python helper) in a real
 * session sandbox: the output shapes the unit tests script, and that hostile input stays data.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import type { ToolRunContext } from "../../../src/toolkit/run-context.js";
import { GLOB_MAX_RESULTS, GlobTool } from "../../../src/toolkit/tools/glob.js";
import { GrepTool } from "../../../src/toolkit/tools/grep.js";
import { createTestProvider, sh, type TestProvider } from "../../sandbox/harness.js";
import { runTool } from "../run-tool.js";
import { contextFor } from "../test-context.js";

let t: TestProvider;
let sandbox: Sandbox;
const grep = new GrepTool();
const glob = new GlobTool();

beforeAll(async () => {
  t = await createTestProvider();
  sandbox = await t.provider.acquire({ sessionId: "ses_search_tools", tenantId: "ten_a" });
});
afterAll(async () => t?.cleanup());

/** A fresh directory under /workspace holding `files` (path → content), older first by a second each. */
async function tree(dir: string, files: Record<string, string>): Promise<ToolRunContext> {
  const base = `/workspace/${dir}`;
  let when = 1_700_000_000;
  for (const [rel, content] of Object.entries(files)) {
    await sandbox.writeFile(`${base}/${rel}`, content);
    await sandbox.exec(sh(`touch -h -d @${when++} '${base}/${rel}'`));
  }
  return contextFor(sandbox, { cwd: base });
}

const run = async (tool: GrepTool | GlobTool, input: Record<string, unknown>, ctx: ToolRunContext) =>
  runTool(tool, input, ctx);

describe("Grep runs ripgrep in the sandbox", () => {
  it("lists matching files under the working directory, skipping .git", async () => {
    const ctx = await tree("g1", {
      "a.txt": "hello world\n",
      "b.txt": "nothing\n",
      ".git/config": "hello\n",
    });
    expect(await run(grep, { pattern: "hello" }, ctx)).toMatchObject({
      text: "/workspace/g1/a.txt",
      state: "success",
    });
  });

  it("shows content with line numbers, line:text for a single file, and counts", async () => {
    const ctx = await tree("g2", { "a.txt": "one\nTwo\nthree two\n" });
    const a = "/workspace/g2/a.txt";
    expect((await run(grep, { pattern: "two", output_mode: "content", i: true }, ctx)).text).toBe(
      `${a}:2:Two\n${a}:3:three two`,
    );
    expect((await run(grep, { pattern: "two", path: a, output_mode: "content" }, ctx)).text).toBe(
      "3:three two",
    );
    expect((await run(grep, { pattern: "e", path: "a.txt", output_mode: "count" }, ctx)).text).toBe("2");
  });

  it("paginates real output and reports regex errors", async () => {
    const ctx = await tree("g3", {
      "n.txt": `${Array.from({ length: 10 }, (_, i) => `m ${i + 1}`).join("\n")}\n`,
    });
    const page = await run(
      grep,
      { pattern: "m", path: "n.txt", output_mode: "content", head_limit: 2, offset: 1 },
      ctx,
    );
    expect(page.text).toBe("2:m 2\n3:m 3\n\n[Showing results with pagination = limit: 2, offset: 1]");
    const bad = await run(grep, { pattern: "(" }, ctx);
    expect(bad.state).toBe("error");
    expect(bad.text).toMatch(/^ripgrep error \(code 2\): regex parse error/);
  });

  it("takes option-shaped pattern, glob and type as values, and ./-name as a path", async () => {
    const ctx = await tree("g4", { "-name": "--pre=bash\n-x=1\n", "b.txt": "-x=1\n" });
    const content = (input: Record<string, unknown>) => run(grep, { output_mode: "content", ...input }, ctx);
    expect((await content({ pattern: "--pre=bash", path: "./-name" })).text).toBe("1:--pre=bash");
    expect((await content({ pattern: "-x=1", glob: "-name" })).text).toBe("/workspace/g4/-name:2:-x=1");
    expect((await content({ pattern: "-x=1", glob: "--pre=sh" })).text).toBe(
      "No matches found for pattern: -x=1",
    );
    const type = await content({ pattern: "x", type: "--pre=sh" });
    expect(type).toMatchObject({
      state: "error",
      text: "ripgrep error (code 2): unrecognized file type: --pre=sh\n",
    });
  });
});

describe("Glob runs its helper in the sandbox", () => {
  it("matches ** across directories, newest first, files only, absolute paths", async () => {
    const ctx = await tree("l1", { "src/a.ts": "", "src/deep/b.ts": "", "c.ts": "", "src/readme.md": "" });
    const r = await run(glob, { pattern: "**/*.ts" }, ctx);
    expect(r).toMatchObject({
      state: "success",
      text: ["c.ts", "src/deep/b.ts", "src/a.ts"].map((f) => `/workspace/l1/${f}`).join("\n"),
    });
  });

  it("expands braces, * matches dotfiles, and a relative path resolves against the working directory", async () => {
    const ctx = await tree("l2", { "x.ts": "", "y.tsx": "", ".hidden.ts": "", "z.js": "", "sub/in.txt": "" });
    expect((await run(glob, { pattern: "*.{ts,tsx}" }, ctx)).text.split("\n").sort()).toEqual([
      "/workspace/l2/.hidden.ts",
      "/workspace/l2/x.ts",
      "/workspace/l2/y.tsx",
    ]);
    expect((await run(glob, { pattern: "*.txt", path: "sub" }, ctx)).text).toBe("/workspace/l2/sub/in.txt");
  });

  it("does not follow directory symlinks, and errors on a missing base directory", async () => {
    const ctx = await tree("l3", { "real/f.txt": "" });
    await sandbox.exec(sh("ln -s /workspace/l3/real /workspace/l3/link"));
    expect((await run(glob, { pattern: "**/*.txt" }, ctx)).text).toBe("/workspace/l3/real/f.txt");
    expect(await run(glob, { pattern: "*", path: "missing" }, ctx)).toMatchObject({
      text: "Directory not found: /workspace/l3/missing",
      state: "error",
    });
  });

  it(`caps the result at ${GLOB_MAX_RESULTS} newest paths and says so`, async () => {
    const ctx = await tree("l4", {});
    await sandbox.exec(
      sh(
        `mkdir -p /workspace/l4 && cd /workspace/l4 && for i in $(seq 1 ${GLOB_MAX_RESULTS + 5}); do : > f$i.txt; done && touch -d @1800000000 f7.txt`,
      ),
    );
    const [list, note] = (await run(glob, { pattern: "*.txt" }, ctx)).text.split("\n\n");
    expect(list?.split("\n")).toHaveLength(GLOB_MAX_RESULTS);
    expect(list?.split("\n")[0]).toBe("/workspace/l4/f7.txt");
    expect(note).toBe(
      `[Showing the ${GLOB_MAX_RESULTS} most recently modified of ${GLOB_MAX_RESULTS + 5} matching files. Use a more specific pattern or path to narrow the search.]`,
    );
  });

  it("never imports a module planted in the workspace, and takes an option-shaped pattern as a pattern", async () => {
    const plant = "import os\nos.system('id > /workspace/l5/pwned.txt')\n";
    const ctx = await tree("l5", { "json.py": plant, "re.py": plant, "-x=1": "" });
    expect((await run(glob, { pattern: "-x=*" }, ctx)).text).toBe("/workspace/l5/-x=1");
    expect(await sandbox.stat("/workspace/l5/pwned.txt")).toBeNull();
  });
});
