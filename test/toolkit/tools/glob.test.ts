import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GLOB_MAX_RESULTS, GlobTool } from "../../../src/toolkit/tools/glob.js";
import { runTool } from "../run-tool.js";
import { makeContext, type TestContext } from "../test-context.js";

const glob = new GlobTool();
let t: TestContext;
afterEach(() => t?.sandbox.dispose());

/** Creates files under the workspace, the later ones newer. */
function files(...rel: string[]): string[] {
  return rel.map((r, i) => {
    const p = join(t.sandbox.workspace, r);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, r);
    const when = new Date(1_700_000_000_000 + i * 1000);
    utimesSync(p, when, when);
    return p;
  });
}

describe("Glob (reference §11.6, Toolshed §16.6)", () => {
  it("matches ** across directories, newest first, files only, absolute paths", async () => {
    t = makeContext();
    const [a, b, c] = files("src/a.ts", "src/deep/b.ts", "c.ts", "src/readme.md");
    const r = await runTool(glob, { pattern: "**/*.ts" }, t.ctx);
    expect(r.state).toBe("success");
    expect(r.text).toBe([c, b, a].join("\n"));
  });

  it("expands braces, and * matches dotfiles", async () => {
    t = makeContext();
    const [x, y, dot] = files("x.ts", "y.tsx", ".hidden.ts", "z.js");
    expect((await runTool(glob, { pattern: "*.{ts,tsx}" }, t.ctx)).text.split("\n").sort()).toEqual(
      [x, y, dot].sort(),
    );
    const [s1, t1] = files("src/one.py", "test/two.py", "docs/three.py");
    expect((await runTool(glob, { pattern: "{src,test}/*.py" }, t.ctx)).text).toBe([t1, s1].join("\n"));
  });

  it("defaults the base to the session's working directory and resolves a relative path against it", async () => {
    t = makeContext();
    const [inner] = files("sub/in.txt");
    t.ctx.cwd = join(t.sandbox.workspace, "sub");
    expect((await runTool(glob, { pattern: "*.txt" }, t.ctx)).text).toBe(inner);
    t.ctx.cwd = t.sandbox.workspace;
    expect((await runTool(glob, { pattern: "*.txt", path: "sub" }, t.ctx)).text).toBe(inner);
  });

  it("does not follow directory symlinks", async () => {
    t = makeContext();
    files("real/f.txt");
    symlinkSync(join(t.sandbox.workspace, "real"), join(t.sandbox.workspace, "link"));
    expect((await runTool(glob, { pattern: "**/*.txt" }, t.ctx)).text).toBe(
      join(t.sandbox.workspace, "real/f.txt"),
    );
  });

  it("says when nothing matched, and errors on a missing base directory", async () => {
    t = makeContext();
    expect(await runTool(glob, { pattern: "*.nope" }, t.ctx)).toMatchObject({
      text: "No files found matching pattern: *.nope",
      state: "success",
    });
    const missing = join(t.sandbox.workspace, "missing");
    expect(await runTool(glob, { pattern: "*", path: missing }, t.ctx)).toMatchObject({
      text: `Directory not found: ${missing}`,
      state: "error",
    });
  });

  it(`caps the result at ${GLOB_MAX_RESULTS} newest paths and says so`, async () => {
    t = makeContext();
    const all = files(...Array.from({ length: GLOB_MAX_RESULTS + 5 }, (_, i) => `many/f${i}.txt`));
    const r = await runTool(glob, { pattern: "many/*.txt" }, t.ctx);
    const [list, note] = r.text.split("\n\n");
    const shown = list?.split("\n") ?? [];
    expect(shown).toHaveLength(GLOB_MAX_RESULTS);
    expect(shown[0]).toBe(all[all.length - 1]);
    expect(note).toBe(
      `[Showing the ${GLOB_MAX_RESULTS} most recently modified of ${GLOB_MAX_RESULTS + 5} matching files. Use a more specific pattern or path to narrow the search.]`,
    );
  });
});
