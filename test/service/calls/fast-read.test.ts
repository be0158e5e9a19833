/** Which submits may try running ahead (src/service/calls/fast-read.ts); the rest is the store's check. */
import { describe, expect, it } from "vitest";
import type { ReadFileResult, Sandbox } from "../../../src/sandbox/sandbox.js";
import { mayRunAhead, readingAhead } from "../../../src/service/calls/fast-read.js";
import type { ToolMiddleware } from "../../../src/toolkit/middleware.js";
import { BashTool } from "../../../src/toolkit/tools/bash.js";
import { EditTool } from "../../../src/toolkit/tools/edit.js";
import { MAX_READ_BYTES } from "../../../src/toolkit/tools/file-state.js";
import { GlobTool } from "../../../src/toolkit/tools/glob.js";
import { ReadTool } from "../../../src/toolkit/tools/read.js";

const passThrough: ToolMiddleware = { onToolCall: (_t, input, next) => next(input) };
const read = new ReadTool();
const row = { status: "queued" as const, idempotencyKey: null };

describe("mayRunAhead", () => {
  it.each([
    ["a queued Read, waited for, without a key", read, row, true, true],
    ["not waited for", read, row, false, false],
    ["wait unknown", read, row, undefined, false],
    ["with an idempotency key", read, { ...row, idempotencyKey: "k" }, true, false],
    ["awaiting approval", read, { ...row, status: "awaiting_approval" as const }, true, false],
    ["a Read with a middleware of its own", new ReadTool({ middlewares: [passThrough] }), row, true, false],
    ["Bash", new BashTool(), row, true, false],
    ["Edit", new EditTool(), row, true, false],
    ["a read-only tool not declared to run ahead (Glob)", new GlobTool(), row, true, false],
  ])("%s", (_what, tool, r, wait, expected) => {
    expect(mayRunAhead(tool, r, wait)).toBe(expected);
  });
});

describe("Read's firstRead: the readFile its run starts with", () => {
  it.each([
    [
      "an absolute path",
      { file_path: "/workspace/a.txt" },
      { path: "/workspace/a.txt", maxBytes: MAX_READ_BYTES },
    ],
    ["a relative path (the run answers an error, reads nothing)", { file_path: "a.txt" }, undefined],
    ["no path", {}, undefined],
  ])("%s", (_what, input, expected) => {
    expect(read.firstRead(input)).toEqual(expected);
  });
});

describe("readingAhead", () => {
  const first = { path: "/workspace/a.txt", maxBytes: 10 };
  const fake = () => {
    const sent: string[] = [];
    const sandbox = {
      sessionId: "ses_x",
      readFile: async (path: string, o?: { maxBytes?: number }) => {
        sent.push(`${path}:${o?.maxBytes}`);
        return { data: Buffer.from(path), mtimeMs: sent.length } as unknown as ReadFileResult;
      },
    } as unknown as Sandbox;
    return { sandbox, sent };
  };

  it("sends the read at once; the run's first readFile of it takes its answer, later ones are sent", async () => {
    const { sandbox, sent } = fake();
    const ahead = readingAhead(sandbox, first);
    expect(sent).toEqual(["/workspace/a.txt:10"]);
    const got = await ahead.sandbox.readFile(first.path, { maxBytes: 10 });
    expect(got).toBe(await ahead.sent);
    expect(sent).toEqual(["/workspace/a.txt:10"]);
    await ahead.sandbox.readFile(first.path, { maxBytes: 10 });
    expect(sent).toEqual(["/workspace/a.txt:10", "/workspace/a.txt:10"]);
  });

  it.each([
    ["another path", "/workspace/b.txt", 10],
    ["another bound", "/workspace/a.txt", 20],
  ])(
    "a first readFile of %s is sent itself, and the read ahead is used by nothing",
    async (_w, path, max) => {
      const { sandbox, sent } = fake();
      const ahead = readingAhead(sandbox, first);
      const got = await ahead.sandbox.readFile(path, { maxBytes: max });
      expect(got.mtimeMs).toBe(2);
      await ahead.sandbox.readFile(first.path, { maxBytes: 10 });
      expect(sent).toEqual(["/workspace/a.txt:10", `${path}:${max}`, "/workspace/a.txt:10"]);
    },
  );

  it("leaves the sandbox's other operations as they are, a class instance's methods included", async () => {
    class Box {
      readonly sessionId = "ses_x";
      private readonly root = "/r";
      async readFile(path: string) {
        return { data: Buffer.from(path), mtimeMs: 1 } as unknown as ReadFileResult;
      }
      async realPath(path: string) {
        return `${this.root}${path}`;
      }
    }
    const ahead = readingAhead(new Box() as unknown as Sandbox, first);
    expect(await ahead.sandbox.realPath("/a")).toBe("/r/a");
    expect(ahead.sandbox.sessionId).toBe("ses_x");
  });
});

describe("readingAhead: a read ahead that fails", () => {
  const first = { path: "/workspace/a.txt", maxBytes: 10 };
  const failing = () => {
    let n = 0;
    const sandbox = {
      sessionId: "ses_x",
      readFile: async (path: string) => {
        n++;
        if (n === 1) throw Object.assign(new Error(`ENOENT ${path}`), { code: "ENOENT" });
        return { data: Buffer.from(path), mtimeMs: n } as unknown as ReadFileResult;
      },
    } as unknown as Sandbox;
    return { sandbox, sends: () => n };
  };

  it("gives its error to the run's first readFile of it, and not to a later one", async () => {
    const { sandbox, sends } = failing();
    const ahead = readingAhead(sandbox, first);
    await expect(ahead.sandbox.readFile(first.path, { maxBytes: 10 })).rejects.toThrow("ENOENT");
    const later = await ahead.sandbox.readFile(first.path, { maxBytes: 10 });
    expect(later.mtimeMs).toBe(2);
    expect(sends()).toBe(2);
  });

  it("taken by nobody, is no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on("unhandledRejection", onUnhandled);
    try {
      const { sandbox } = failing();
      const ahead = readingAhead(sandbox, first);
      // The run asks for another read first: the read ahead fails with nobody awaiting it.
      await ahead.sandbox.readFile("/workspace/b.txt", { maxBytes: 10 });
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
