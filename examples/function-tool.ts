/**
 * A host program using the toolkit as a library: a FunctionTool declared with zod, a logging
 * middleware around it, a Toolkit, and one call run through it. Run: `npx tsx examples/function-tool.ts`.
 */
import { z } from "zod";
import type { ToolInput } from "../src/permission/types.js";
import {
  createHostContext,
  FunctionTool,
  type NextHandler,
  type ToolBase,
  type ToolChunk,
  Toolkit,
  type ToolMiddleware,
} from "../src/toolkit/index.js";

/** Logs every call of the tool it is attached to: input before, chunk count and time after. */
class LoggingMiddleware implements ToolMiddleware {
  async *onToolCall(tool: ToolBase, input: ToolInput, next: NextHandler): AsyncIterable<ToolChunk> {
    const started = Date.now();
    console.log(`[log] -> ${tool.name} ${JSON.stringify(input)}`);
    let chunks = 0;
    for await (const chunk of next(input)) {
      chunks += 1;
      yield chunk;
    }
    console.log(`[log] <- ${tool.name} ${chunks} chunk(s) in ${Date.now() - started} ms`);
  }
}

const add = new FunctionTool({
  name: "add",
  description: "Add two numbers.",
  schema: z.object({
    a: z.number().describe("The first number"),
    b: z.number().default(2).describe("The second number"),
  }),
  isReadOnly: true,
  fn: ({ a, b }) => `${a} + ${b} = ${a + b}`,
  middlewares: [new LoggingMiddleware()],
});

const toolkit = new Toolkit({ tools: [add] });
console.log(JSON.stringify(toolkit.getToolSchemas()));

// The model produced this call; the toolkit parses, validates and runs it.
const response = await toolkit.callTool("add", '{"a": 40}', createHostContext(), { callId: "call_1" });
const text = response.content.map((block) => (block.type === "text" ? block.text : "")).join("");
console.log(`${response.id} ${response.state}: ${text}`);
