import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolChunk } from "../../src/toolkit/content.js";
import { FunctionTool } from "../../src/toolkit/function-tool.js";
import { textChunk } from "../../src/toolkit/response.js";
import type { ToolRunContext } from "../../src/toolkit/run-context.js";
import { stripTitles } from "../../src/toolkit/schemas.js";
import { Toolkit } from "../../src/toolkit/toolkit.js";
import { ToolkitConfigError } from "../../src/toolkit/toolkit-errors.js";

function tool(name: string, fn: () => unknown = () => `${name} ran`): FunctionTool {
  return new FunctionTool({
    name,
    description: `${name} tool`,
    schema: z.object({ n: z.number().optional() }),
    fn,
  });
}

function context(chunks: ToolChunk[] = [], signal = new AbortController().signal): ToolRunContext {
  return { signal, onChunk: (c: ToolChunk) => chunks.push(c) } as unknown as ToolRunContext;
}

const textOf = (r: { content: { type: string; text?: string }[] }) =>
  r.content.map((b) => b.text ?? "").join("");

describe("Toolkit registration", () => {
  it("rejects a group named basic, duplicate groups and missing descriptions", () => {
    expect(() => new Toolkit({ groups: [{ name: "basic", description: "x", tools: [] }] })).toThrow(
      /reserved/,
    );
    const g = { name: "db", description: "Database", tools: [] };
    expect(() => new Toolkit({ groups: [g, g] })).toThrow(
      "Tool groups must not contain duplicate tool groups.",
    );
    expect(() => new Toolkit({ groups: [{ name: "db", description: "", tools: [] }] })).toThrow(
      /description is required for tool group 'db'/,
    );
  });

  it("rejects colliding tool names, naming both groups", () => {
    expect(
      () =>
        new Toolkit({
          tools: [tool("a")],
          groups: [{ name: "db", description: "Database", tools: [tool("a")] }],
        }),
    ).toThrow(
      new ToolkitConfigError("Duplicate tool name 'a': registered in group 'basic' and again in group 'db'."),
    );
    expect(() => new Toolkit({ tools: [tool("x"), tool("x")] })).toThrow(/Duplicate tool name 'x'/);
  });

  it("rejects a tool named reset_tools once a non-basic group exists", () => {
    expect(
      () =>
        new Toolkit({ tools: [tool("reset_tools")], groups: [{ name: "g", description: "G", tools: [] }] }),
    ).toThrow(/collides with the toolkit's built-in 'reset_tools'/);
  });
});

describe("Toolkit availability and schemas", () => {
  const kit = new Toolkit({
    tools: [tool("b1"), tool("b2")],
    groups: [
      { name: "g1", description: "G1", tools: [tool("x1")] },
      { name: "g2", description: "G2", tools: [tool("y1")] },
    ],
  });

  it("lists reset_tools, basic, then active groups in registration order; unknown names are ignored", () => {
    expect([...kit.availableTools(["g2", "nope", "g1"]).keys()]).toEqual([
      "reset_tools",
      "b1",
      "b2",
      "x1",
      "y1",
    ]);
    expect([...kit.availableTools().keys()]).toEqual(["reset_tools", "b1", "b2"]);
  });

  it("gives function schemas for the available tools only", () => {
    const schemas = kit.getToolSchemas(["g1"]);
    expect(schemas.map((s) => s.function.name)).toEqual(["reset_tools", "b1", "b2", "x1"]);
    expect(schemas[1]).toEqual({
      type: "function",
      function: {
        name: "b1",
        description: "b1 tool",
        parameters: { type: "object", properties: { n: { type: "number" } } },
      },
    });
    expect(new Toolkit().getToolSchemas()).toEqual([]);
  });

  it("strips titles at the top, in properties, items, additionalProperties and $defs but not in anyOf", () => {
    const schema = {
      title: "Top",
      type: "object",
      properties: {
        a: { title: "A", type: "array", items: { title: "Item", type: "string" } },
        b: { title: "B", anyOf: [{ title: "Keep", type: "string" }] },
        c: { type: "object", additionalProperties: { title: "AP", type: "number" } },
      },
      $defs: { D: { title: "D", type: "object" } },
    };
    expect(stripTitles(schema)).toEqual({
      type: "object",
      properties: {
        a: { type: "array", items: { type: "string" } },
        b: { anyOf: [{ title: "Keep", type: "string" }] },
        c: { type: "object", additionalProperties: { type: "number" } },
      },
      $defs: { D: { type: "object" } },
    });
    expect(schema.title).toBe("Top");
  });

  it("fails the listing on an invalid input schema", () => {
    const bad = tool("bad");
    Object.defineProperty(bad, "inputSchema", { value: { type: "string" } });
    expect(() => new Toolkit({ tools: [bad] }).getToolSchemas()).toThrow(/Invalid input_schema/);
  });
});

describe("Toolkit.callTool", () => {
  const kit = new Toolkit({
    tools: [
      tool("ok"),
      tool("throws", () => {
        throw new Error("add() got an unexpected keyword argument 'zzz'");
      }),
      tool("streams", async function* () {
        yield textChunk("a");
        yield textChunk("b", { metadata: { k: 1 } });
      }),
    ],
    groups: [{ name: "db", description: "Database", tools: [tool("query")] }],
  });

  it("runs a tool and returns a response with the call id, streaming every chunk", async () => {
    const chunks: ToolChunk[] = [];
    const r = await kit.callTool("streams", "{}", context(chunks), { callId: "call_9" });
    expect(r).toMatchObject({ id: "call_9", state: "success", metadata: { k: 1 } });
    expect(textOf(r)).toBe("ab");
    expect(chunks).toHaveLength(2);
  });

  it("answers an unknown tool with ToolNotFoundError", async () => {
    const r = await kit.callTool("nope", "{}", context());
    expect(r.state).toBe("error");
    expect(textOf(r)).toBe("ToolNotFoundError: The tool named 'nope' doesn't exist.");
  });

  it("answers a tool of an inactive group with the inactive-group text", async () => {
    const r = await kit.callTool("query", "{}", context());
    expect(textOf(r)).toBe(
      "ToolGroupInactiveError: The tool 'query' in group 'db' is currently inactive. You should first activate the group by calling the 'reset_tools' tool.",
    );
    const active = await kit.callTool("query", "{}", context(), { activeGroups: ["db"] });
    expect(active.state).toBe("success");
  });

  it("repairs lenient JSON and reports unrepairable or non-object arguments", async () => {
    expect((await kit.callTool("ok", '{"n": 1', context())).state).toBe("success");
    const list = await kit.callTool("ok", "[1, 2]", context());
    expect(textOf(list)).toBe(
      [
        "ToolJSONDecodeError: <system-reminder>Error: Your argument string is decoded into a <class 'list'> object, but a dict object is expected!",
        "",
        "Your argument string is decoded by the following code snippet:",
        "```python",
        "import json",
        "",
        "your_tool_arguments = '[1, 2]'",
        "json.loads(your_tool_arguments)",
        "```",
        "",
        "**You should recorrect the arguments in JSON format.**</system-reminder>",
      ].join("\n"),
    );
    const bad = await kit.callTool("ok", `{"n": ${"x".repeat(300)}}`, context());
    expect(textOf(bad)).toMatch(
      /^ToolJSONDecodeError: <system-reminder>Error: When decoding your tool arguments/,
    );
    expect(textOf(bad)).toContain('(Because the JSON string is too long, a truncated label "[TRUNCATE]"');
    expect(textOf(bad)).toContain("[TRUNCATE]");
  });

  it("reports input validation failures", async () => {
    const r = await kit.callTool("ok", '{"n": "yes"}', context());
    expect(textOf(r)).toBe("Input validation failed for tool 'ok': 'yes' is not of type 'number'");
  });

  it("turns a thrown exception into an error result with its message", async () => {
    const r = await kit.callTool("throws", {}, context());
    expect(r.state).toBe("error");
    expect(textOf(r)).toBe("add() got an unexpected keyword argument 'zzz'");
  });

  it("turns an exception after cancel into the interrupted text", async () => {
    const abort = new AbortController();
    const slow = new FunctionTool({
      name: "slow",
      description: "Slow.",
      schema: z.object({}),
      fn: () => {
        abort.abort();
        throw new Error("aborted");
      },
    });
    const r = await new Toolkit({ tools: [slow] }).callTool("slow", {}, context([], abort.signal));
    expect(r.state).toBe("interrupted");
    expect(textOf(r)).toBe(
      "<system-reminder>The tool call has been interrupted by the user.</system-reminder>",
    );
  });
});
