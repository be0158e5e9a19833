/** Which submits may try running ahead (src/service/calls/fast-read.ts); the rest is the store's check. */
import { describe, expect, it } from "vitest";
import { mayRunAhead } from "../../../src/service/calls/fast-read.js";
import type { ToolMiddleware } from "../../../src/toolkit/middleware.js";
import { BashTool } from "../../../src/toolkit/tools/bash.js";
import { EditTool } from "../../../src/toolkit/tools/edit.js";
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
