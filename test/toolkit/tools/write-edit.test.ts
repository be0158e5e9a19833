import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SandboxFileError } from "../../../src/sandbox/sandbox.js";
import { EditTool } from "../../../src/toolkit/tools/edit.js";
import { ReadTool } from "../../../src/toolkit/tools/read.js";
import { WriteTool } from "../../../src/toolkit/tools/write.js";
import { runTool } from "../run-tool.js";
import { makeContext, type TestContext } from "../test-context.js";

const [read, write, edit] = [new ReadTool(), new WriteTool(), new EditTool()];
let t: TestContext;
afterEach(() => t?.sandbox.dispose());

function setup(name = "f.txt", content?: string): string {
  t = makeContext();
  const p = join(t.sandbox.workspace, name);
  if (content !== undefined) writeFileSync(p, content);
  return p;
}

describe("Write", () => {
  it("creates a file with parents and reports the real line count and a /dev/null diff", async () => {
    t = makeContext();
    const p = join(t.sandbox.workspace, "new/dir/a.txt");
    const r = await runTool(write, { file_path: p, content: "a\nb\n" }, t.ctx);
    expect(r.state).toBe("success");
    expect(r.text).toBe(`The file ${p} has been written successfully (2 lines).`);
    expect(readFileSync(p, "utf8")).toBe("a\nb\n");
    expect(r.metadata).toEqual({
      diff: `--- /dev/null\n+++ b/${p}\n@@ -0,0 +1,2 @@\n+a\n+b\n`,
      file_path: p,
      occurrences: 1,
    });
  });

  it.each([
    ["", "0 lines"],
    ["one", "1 line"],
    ["a\nb", "2 lines"],
  ])("counts %j as %s", async (content, words) => {
    const p = setup("count.txt");
    expect((await runTool(write, { file_path: p, content }, t.ctx)).text).toContain(`(${words}).`);
  });

  it("refuses to overwrite a file that was not read, leaving it unchanged", async () => {
    const p = setup("f.txt", "original\n");
    const r = await runTool(write, { file_path: p, content: "new" }, t.ctx);
    expect(r.state).toBe("error");
    expect(r.text).toBe(
      `Error: File ${p} exists but has not been read yet. You must read the file first before writing to it.`,
    );
    expect(readFileSync(p, "utf8")).toBe("original\n");
  });

  it("overwrites after a Read, with an a/ b/ diff, and refreshes the cache so Edit needs no re-read", async () => {
    const p = setup("f.txt", "original\n");
    await runTool(read, { file_path: p }, t.ctx);
    const w = await runTool(write, { file_path: p, content: "first\nsecond\n" }, t.ctx);
    expect(w.metadata.diff).toBe(`--- a/${p}\n+++ b/${p}\n@@ -1 +1,2 @@\n-original\n+first\n+second\n`);
    const e = await runTool(edit, { file_path: p, old_string: "second", new_string: "2nd" }, t.ctx);
    expect(e.text).toBe(`Successfully replaced 1 occurrence in ${p}`);
    expect(readFileSync(p, "utf8")).toBe("first\n2nd\n");
    const w2 = await runTool(write, { file_path: p, content: "again\n" }, t.ctx);
    expect(w2.state).toBe("success");
  });

  it("rejects a relative path", async () => {
    t = makeContext();
    expect((await runTool(write, { file_path: "x.txt", content: "" }, t.ctx)).text).toBe(
      "Error: file_path must be an absolute path, got: x.txt",
    );
  });
});

it("Write and Edit on a full disk say so, and that the file was left as it was", async () => {
  const p = setup("f.txt", "original\n");
  await runTool(read, { file_path: p }, t.ctx);
  t.sandbox.writeFile = async () => {
    throw new SandboxFileError("ENOSPC", p, "ENOSPC: no space left on device, write");
  };
  const full = `Error writing file: no space left for ${p}: the session's workspace, or the host's disk, is full. The file was left as it was; free some space and try again.`;
  const w = await runTool(write, { file_path: p, content: "new\n" }, t.ctx);
  expect([w.state, w.text]).toEqual(["error", full]);
  const e = await runTool(edit, { file_path: p, old_string: "original", new_string: "x" }, t.ctx);
  expect([e.state, e.text]).toEqual(["error", full]);
});

describe("Edit", () => {
  it("checks its errors in the reference order", async () => {
    const p = setup("e.txt", "foo bar foo\n");
    const run = (input: Record<string, unknown>) => runTool(edit, { file_path: p, ...input }, t.ctx);
    expect((await run({ file_path: "rel", old_string: "a", new_string: "b" })).text).toBe(
      "Error: file_path must be an absolute path, got: rel",
    );
    const missing = join(t.sandbox.workspace, "missing.txt");
    expect((await run({ file_path: missing, old_string: "a", new_string: "b" })).text).toBe(
      `Error: File not found: ${missing}`,
    );
    expect((await run({ old_string: "a", new_string: "a" })).text).toBe(
      "Error: old_string and new_string are identical. No changes to make.",
    );
    expect((await run({ old_string: "foo", new_string: "baz" })).text).toBe(
      "Error: To edit a file, you must first read it using the Read tool.",
    );
    await runTool(read, { file_path: p }, t.ctx);
    expect((await run({ old_string: "nope", new_string: "x" })).text).toBe(
      `Error: old_string not found in ${p}`,
    );
    const twice = await run({ old_string: "foo", new_string: "baz" });
    expect(twice.state).toBe("error");
    expect(twice.text).toBe(
      `Error: old_string appears 2 times in ${p}. Set replace_all=true to replace all occurrences, or make old_string more specific.`,
    );
    expect(readFileSync(p, "utf8")).toBe("foo bar foo\n");
  });

  it("replaces all occurrences with replace_all, and says 'all' even for one", async () => {
    const p = setup("e.txt", "foo bar foo\n");
    await runTool(read, { file_path: p }, t.ctx);
    const r = await runTool(
      edit,
      { file_path: p, old_string: "foo", new_string: "$&x", replace_all: true },
      t.ctx,
    );
    expect(r.text).toBe(`Successfully replaced all 2 occurrences in ${p}`);
    expect(r.metadata).toMatchObject({ file_path: p, occurrences: 2 });
    expect(readFileSync(p, "utf8")).toBe("$&x bar $&x\n");
    const one = await runTool(
      edit,
      { file_path: p, old_string: "bar", new_string: "BAR", replace_all: true },
      t.ctx,
    );
    expect(one.text).toBe(`Successfully replaced all 1 occurrences in ${p}`);
  });

  it("allows two Edits in a row without a re-read (the cache is refreshed)", async () => {
    const p = setup("e.txt", "a\nb\nc\n");
    await runTool(read, { file_path: p }, t.ctx);
    expect((await runTool(edit, { file_path: p, old_string: "a\n", new_string: "A\n" }, t.ctx)).state).toBe(
      "success",
    );
    expect((await runTool(edit, { file_path: p, old_string: "c\n", new_string: "C\n" }, t.ctx)).state).toBe(
      "success",
    );
    expect(readFileSync(p, "utf8")).toBe("A\nb\nC\n");
  });

  it("asks for a new Read after someone else changed the file", async () => {
    const p = setup("e.txt", "a\nb\n");
    await runTool(read, { file_path: p }, t.ctx);
    writeFileSync(p, "a\nb\nexternal\n");
    const r = await runTool(edit, { file_path: p, old_string: "a", new_string: "A" }, t.ctx);
    expect(r.text).toBe("Error: To edit a file, you must first read it using the Read tool.");
    expect(await t.cache.get(t.ctx.sessionId, p)).toBeUndefined();
  });

  it("detects a change that kept the mtime (content hash)", async () => {
    const p = setup("e.txt", "aaaa\n");
    await runTool(read, { file_path: p }, t.ctx);
    const { atime, mtime } = statSync(p);
    writeFileSync(p, "bbbb\n");
    utimesSync(p, atime, mtime);
    const r = await runTool(write, { file_path: p, content: "x" }, t.ctx);
    expect(r.text).toMatch(/exists but has not been read yet/);
  });

  it("keeps CRLF line endings", async () => {
    const p = setup("win.txt", "one\r\ntwo\r\nthree\r\n");
    expect((await runTool(read, { file_path: p }, t.ctx)).text).toBe(
      "     1\tone\n     2\ttwo\n     3\tthree",
    );
    const r = await runTool(edit, { file_path: p, old_string: "two\nthree", new_string: "2\n3\n4" }, t.ctx);
    expect(r.state).toBe("success");
    expect(readFileSync(p, "utf8")).toBe("one\r\n2\r\n3\r\n4\r\n");
    expect((await runTool(edit, { file_path: p, old_string: "4", new_string: "four" }, t.ctx)).state).toBe(
      "success",
    );
    expect(readFileSync(p, "utf8")).toBe("one\r\n2\r\n3\r\nfour\r\n");
  });

  it("puts a unified diff with 3 context lines in the metadata", async () => {
    const p = setup("d.txt", "1\n2\n3\n4\n5\n6\n7\n8\n");
    await runTool(read, { file_path: p }, t.ctx);
    const r = await runTool(edit, { file_path: p, old_string: "5\n", new_string: "five\n" }, t.ctx);
    expect(r.metadata.diff).toBe(
      `--- a/${p}\n+++ b/${p}\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n`,
    );
  });
});
