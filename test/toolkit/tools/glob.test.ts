import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ExecRequest, ExecResult } from "../../../src/sandbox/sandbox.js";
import { GLOB_ARGV, GLOB_MAX_RESULTS, GlobTool } from "../../../src/toolkit/tools/glob.js";
import { runTool } from "../run-tool.js";
import { makeContext, type TestContext } from "../test-context.js";

const glob = new GlobTool();
let t: TestContext;
afterEach(() => t?.sandbox.dispose());

/** A scripted helper (the real one runs in search-tools.int.test.ts): records requests, answers `out`. */
function fakeHelper(out: Partial<ExecResult>) {
  const requests: ExecRequest[] = [];
  t.sandbox.programs.set("python3", (req) => {
    requests.push(req);
    return out;
  });
  return requests;
}

const listing = (files: string[], total = files.length) => ({ stdout: JSON.stringify({ files, total }) });

describe("Glob on the fake sandbox", () => {
  it("runs the fixed helper argv with pattern, base and cap as JSON on stdin", async () => {
    t = makeContext();
    mkdirSync(join(t.sandbox.workspace, "sub"));
    const requests = fakeHelper(listing([]));
    await runTool(glob, { pattern: "**/*.ts" }, t.ctx);
    await runTool(glob, { pattern: "*.txt", path: "sub" }, t.ctx);
    await runTool(glob, { pattern: "-x=\n", path: "" }, t.ctx);
    expect(requests.map((r) => r.argv)).toEqual([[...GLOB_ARGV], [...GLOB_ARGV], [...GLOB_ARGV]]);
    expect(requests.map((r) => JSON.parse(r.stdin ?? ""))).toEqual([
      { pattern: "**/*.ts", base: t.sandbox.workspace, limit: GLOB_MAX_RESULTS },
      { pattern: "*.txt", base: join(t.sandbox.workspace, "sub"), limit: GLOB_MAX_RESULTS },
      { pattern: "-x=\n", base: t.sandbox.workspace, limit: GLOB_MAX_RESULTS },
    ]);
  });

  it("returns the helper's paths in its order, and says when the cap cut the list", async () => {
    t = makeContext();
    fakeHelper(listing(["/w/b.ts", "/w/a.ts"]));
    expect(await runTool(glob, { pattern: "*.ts" }, t.ctx)).toMatchObject({
      text: "/w/b.ts\n/w/a.ts",
      state: "success",
    });
    fakeHelper(listing(["/w/new.ts"], GLOB_MAX_RESULTS + 5));
    expect((await runTool(glob, { pattern: "*.ts" }, t.ctx)).text).toBe(
      `/w/new.ts\n\n[Showing the 1 most recently modified of ${GLOB_MAX_RESULTS + 5} matching files. Use a more specific pattern or path to narrow the search.]`,
    );
  });

  it("says when nothing matched (also for unparseable output), and errors on a missing base directory", async () => {
    t = makeContext();
    fakeHelper(listing([]));
    expect(await runTool(glob, { pattern: "*.nope" }, t.ctx)).toMatchObject({
      text: "No files found matching pattern: *.nope",
      state: "success",
    });
    fakeHelper({ stdout: "not json" });
    expect((await runTool(glob, { pattern: "*.x" }, t.ctx)).text).toBe(
      "No files found matching pattern: *.x",
    );
    const missing = join(t.sandbox.workspace, "missing");
    expect(await runTool(glob, { pattern: "*", path: missing }, t.ctx)).toMatchObject({
      text: `Directory not found: ${missing}`,
      state: "error",
    });
  });

  it("reports helper failures and timeouts as errors", async () => {
    t = makeContext();
    fakeHelper({ exitCode: 1, stderr: "Traceback: boom\n" });
    expect(await runTool(glob, { pattern: "*" }, t.ctx)).toMatchObject({
      text: "Glob helper failed: Traceback: boom",
      state: "error",
    });
    fakeHelper({ exitCode: 1 });
    expect((await runTool(glob, { pattern: "*" }, t.ctx)).text).toBe(
      "Glob helper failed with no error output.",
    );
    fakeHelper({ timedOut: true, exitCode: null });
    expect((await runTool(glob, { pattern: "*" }, t.ctx)).text).toBe(
      "Glob timed out after 30 seconds. Try a more specific pattern or path.",
    );
  });

  it("refuses a path that looks like an option, and a NUL, before running anything", async () => {
    t = makeContext();
    const requests = fakeHelper(listing([]));
    for (const input of [{ pattern: "*", path: "-x" }, { pattern: "*\0" }, { pattern: "*", path: "a\0" }]) {
      const r = await runTool(glob, input, t.ctx);
      expect(r.state).toBe("error");
      expect(r.text).toMatch(/^Input validation failed for tool 'Glob': .*(starts with '-'|NUL)/);
    }
    expect(requests).toEqual([]);
  });
});
