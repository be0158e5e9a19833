import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { PermissionContext } from "../../src/permission/types.js";
import { FunctionTool } from "../../src/toolkit/function-tool.js";
import type { ToolRunContext } from "../../src/toolkit/run-context.js";
import { invoke } from "../../src/toolkit/tool-base.js";

const permCtx: PermissionContext = {
  mode: "default",
  cwd: "/workspace",
  home: "/home/agent",
  workingDirectories: [],
  rules: { allow: [], deny: [], ask: [] },
};
const ctx = { signal: new AbortController().signal } as ToolRunContext;

const add = new FunctionTool({
  name: "add",
  description: "Add numbers.\nLonger explanation here.",
  schema: z.object({
    a: z.number().int().describe("first"),
    b: z.number().int().default(2).describe("second"),
    note: z.string().nullable().default(null),
  }),
  fn: ({ a, b }) => ({ sum: a + b, text: "ünïcode" }),
});

async function texts(tool: FunctionTool, input: Record<string, unknown>): Promise<string[]> {
  const out: string[] = [];
  for await (const c of invoke(tool, input, ctx)) {
    for (const b of c.content) if (b.type === "text") out.push(b.text);
    expect(c.state).toBe("running");
  }
  return out;
}

describe("FunctionTool", () => {
  it("turns the zod schema into an object JSON schema with required and defaults", () => {
    expect(add.inputSchema).toEqual({
      type: "object",
      properties: {
        a: { type: "integer", description: "first" },
        b: { type: "integer", default: 2, description: "second" },
        note: { type: ["string", "null"], default: null },
      },
      required: ["a"],
    });
  });

  it("has the reference defaults: concurrency-safe, not read-only, not state-injected", () => {
    expect(add).toMatchObject({ isConcurrencySafe: true, isReadOnly: false, isStateInjected: false });
    expect(add.checkReadOnly({}, permCtx)).toBe(false);
  });

  it("asks (not bypass-immune) with the reference message", () => {
    expect(add.checkPermissions({ a: 1 }, permCtx)).toEqual({
      behavior: "ask",
      message: "Custom function tools must be explicitly allowed by the user.",
      reason: null,
      bypassImmune: false,
    });
    expect(add.generateSuggestions({}, permCtx)).toEqual([
      { toolName: "add", ruleContent: null, behavior: "allow", source: "suggested" },
    ]);
  });

  it("serialises non-string results as JSON with non-ASCII kept", async () => {
    expect(await texts(add, { a: 1 })).toEqual(['{"sum":3,"text":"ünïcode"}']);
  });

  it("passes strings through as text and turns generators into streams", async () => {
    const gen = new FunctionTool({
      name: "count",
      description: "Counts.",
      schema: z.object({}),
      fn: function* () {
        yield "one";
        yield 2;
      },
    });
    expect(await texts(gen, {})).toEqual(["one", "2"]);
  });

  it("validates input and reports jsonschema-style messages", () => {
    expect(add.validateInput({})).toEqual({ ok: false, message: "'a' is a required property" });
    expect(add.validateInput({ a: "x" })).toEqual({ ok: false, message: "'x' is not of type 'number'" });
    expect(add.validateInput({ a: 1 })).toEqual({ ok: true, input: { a: 1, b: 2, note: null } });
  });
});
