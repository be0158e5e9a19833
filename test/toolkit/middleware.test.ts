import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolInput } from "../../src/permission/types.js";
import type { ToolChunk } from "../../src/toolkit/content.js";
import { FunctionTool } from "../../src/toolkit/function-tool.js";
import type { NextHandler, ToolMiddleware } from "../../src/toolkit/middleware.js";
import { textChunk } from "../../src/toolkit/response.js";
import type { ToolRunContext } from "../../src/toolkit/run-context.js";
import { invoke, type ToolBase } from "../../src/toolkit/tool-base.js";

const ctx = { signal: new AbortController().signal } as ToolRunContext;

function recorder(label: string, log: string[]): ToolMiddleware {
  return {
    async *onToolCall(_tool: ToolBase, input: ToolInput, next: NextHandler) {
      log.push(`${label}-pre`);
      for await (const c of next(input)) yield c;
      log.push(`${label}-post`);
    },
  };
}

function echoTool(log: string[], middlewares: ToolMiddleware[]): FunctionTool {
  return new FunctionTool({
    name: "echo",
    description: "Echo.",
    schema: z.object({ text: z.string() }),
    fn: ({ text }) => {
      log.push("call");
      return text;
    },
    middlewares,
  });
}

async function collect(stream: AsyncIterable<ToolChunk>): Promise<ToolChunk[]> {
  const out: ToolChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

describe("tool middleware", () => {
  it("runs as an onion: the first registered is the outermost", async () => {
    const log: string[] = [];
    const tool = echoTool(log, [recorder("m1", log), recorder("m2", log)]);
    const chunks = await collect(invoke(tool, { text: "hi" }, ctx));
    expect(log).toEqual(["m1-pre", "m2-pre", "call", "m2-post", "m1-post"]);
    expect(chunks.map((c) => c.content[0])).toMatchObject([{ type: "text", text: "hi" }]);
  });

  it("may rewrite the input and transform chunks", async () => {
    const log: string[] = [];
    const upper: ToolMiddleware = {
      async *onToolCall(_tool, input, next) {
        for await (const c of next({ ...input, text: `${String(input.text)}!` })) {
          yield textChunk(c.content.map((b) => (b.type === "text" ? b.text.toUpperCase() : "")).join(""));
        }
      },
    };
    const chunks = await collect(invoke(echoTool(log, [upper]), { text: "hi" }, ctx));
    expect(chunks[0]?.content[0]).toMatchObject({ text: "HI!" });
  });

  it("short-circuits: a middleware that never calls next keeps the tool from running", async () => {
    const log: string[] = [];
    const deny: ToolMiddleware = {
      async *onToolCall() {
        yield textChunk("blocked", { state: "error" });
      },
    };
    const chunks = await collect(invoke(echoTool(log, [recorder("outer", log), deny]), { text: "x" }, ctx));
    expect(log).toEqual(["outer-pre", "outer-post"]);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.state).toBe("error");
  });

  it("next always yields a stream, even for a tool returning one chunk", async () => {
    const seen: unknown[] = [];
    const probe: ToolMiddleware = {
      async *onToolCall(_tool, input, next) {
        const stream = next(input);
        seen.push(Symbol.asyncIterator in stream);
        yield* stream;
      },
    };
    await collect(invoke(echoTool([], [probe]), { text: "x" }, ctx));
    expect(seen).toEqual([true]);
  });

  it("propagates exceptions raised by a middleware", async () => {
    const boom: ToolMiddleware = {
      // biome-ignore lint/correctness/useYield: the middleware fails before yielding.
      async *onToolCall() {
        throw new Error("middleware failed");
      },
    };
    await expect(collect(invoke(echoTool([], [boom]), { text: "x" }, ctx))).rejects.toThrow(
      "middleware failed",
    );
  });
});
