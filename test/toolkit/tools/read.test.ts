import { truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ReadTool } from "../../../src/toolkit/tools/read.js";
import { runTool } from "../run-tool.js";
import { makeContext, type TestContext } from "../test-context.js";

const read = new ReadTool();
let t: TestContext;
afterEach(() => t?.sandbox.dispose());

describe("Read", () => {
  it("prints cat -n lines: number right-aligned in 6, a TAB, no trailing newline", async () => {
    t = makeContext();
    const p = join(t.sandbox.workspace, "a.txt");
    writeFileSync(p, "alpha\nbeta\n\n");
    const r = await runTool(read, { file_path: p }, t.ctx);
    expect(r.state).toBe("success");
    expect(r.text).toBe("     1\talpha\n     2\tbeta\n     3\t");
  });

  it("normalises CRLF and lone CR, and honours offset and limit", async () => {
    t = makeContext();
    const p = join(t.sandbox.workspace, "b.txt");
    writeFileSync(p, "one\r\ntwo\rthree\nfour\n");
    expect((await runTool(read, { file_path: p, offset: 2, limit: 2 }, t.ctx)).text).toBe(
      "     2\ttwo\n     3\tthree",
    );
    expect((await runTool(read, { file_path: p, offset: 9 }, t.ctx)).text).toBe("");
  });

  it("cuts lines over 2000 characters with [truncated]", async () => {
    t = makeContext();
    const p = join(t.sandbox.workspace, "long.txt");
    writeFileSync(p, `${"x".repeat(2500)}\n`);
    expect((await runTool(read, { file_path: p }, t.ctx)).text).toBe(
      `     1\t${"x".repeat(2000)}[truncated]`,
    );
  });

  it("returns an empty success for an empty file", async () => {
    t = makeContext();
    const p = join(t.sandbox.workspace, "empty");
    writeFileSync(p, "");
    expect(await runTool(read, { file_path: p }, t.ctx)).toMatchObject({ text: "", state: "success" });
  });

  it.each([
    ["relative", "rel.txt", "Error: file_path must be an absolute path, got: rel.txt"],
    ["missing", "/MISSING", "Error: File does not exist: /MISSING"],
  ])("errors on a %s path", async (_label, raw, message) => {
    t = makeContext();
    const p = raw === "/MISSING" ? join(t.sandbox.workspace, "nope.txt") : raw;
    const r = await runTool(read, { file_path: p }, t.ctx);
    expect(r.state).toBe("error");
    expect(r.text).toBe(message.replace("/MISSING", p));
  });

  it("errors on a directory", async () => {
    t = makeContext();
    const r = await runTool(read, { file_path: t.sandbox.workspace }, t.ctx);
    expect(r.text).toBe(`Error: Path is a directory, not a file: ${t.sandbox.workspace}`);
  });

  it("refuses files over 10 MiB with a clear error", async () => {
    t = makeContext();
    const p = join(t.sandbox.workspace, "big.log");
    writeFileSync(p, "");
    truncateSync(p, 10 * 1024 * 1024 + 1);
    const r = await runTool(read, { file_path: p }, t.ctx);
    expect(r.state).toBe("error");
    expect(r.text).toMatch(/is larger than the 10 MiB Read limit/);
  });

  it("validates the schema limits", async () => {
    t = makeContext();
    const r = await runTool(read, { file_path: "/x", limit: 2001 }, t.ctx);
    expect(r.text).toBe("Input validation failed for tool 'Read': 2001 is greater than the maximum of 2000");
  });

  it("caches what the sandbox saw, keyed by the real path, with mtime and sha256", async () => {
    t = makeContext();
    const p = join(t.sandbox.workspace, "c.txt");
    writeFileSync(p, "hi\n");
    await runTool(read, { file_path: p }, t.ctx);
    const entry = await t.cache.get(t.ctx.sessionId, p);
    expect(entry).toMatchObject({
      filePath: p,
      lines: ["hi\n"],
      sizeBytes: 3,
      contentHash: "98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4",
    });
  });
});
