import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctionTool } from "../../src/toolkit/function-tool.js";
import { createHostContext } from "../../src/toolkit/host-context.js";
import { Toolkit } from "../../src/toolkit/toolkit.js";

function tool(name: string): FunctionTool {
  return new FunctionTool({
    name,
    description: `${name} tool`,
    schema: z.object({}),
    fn: () => `${name} ran`,
  });
}

const textOf = (r: { content: { type: string; text?: string }[] }) =>
  r.content.map((b) => b.text ?? "").join("");

const DESCRIPTION = [
  "This tool allows you to reset your equipped tools based on your current task requirements. These tools are organized into different groups, and you can activate/deactivate them by specifying the boolean values for each group in the input.",
  "",
  "**Important: The input booleans are the final state of their corresponding tool groups, not incremental changes.** Any group not explicitly set to True will be deactivated, regardless of its previous state.",
  "",
  "**Best practice**: Actively manage your tool groups——activate only what you need for the current task, and promptly deactivate groups as soon as they are no longer needed to conserve context space.",
  "",
  "This tool will return the usage instructions for the activated tool groups, which you **MUST pay attention to and follow**. You can also reuse this tool to re-check the instructions.",
].join("\n");

function kit(): Toolkit {
  return new Toolkit({
    tools: [tool("Bash")],
    groups: [
      { name: "group_1", description: "Group 1", tools: [tool("one")] },
      { name: "group_2", description: "Group 2", instructions: "This is group 2.", tools: [tool("two")] },
      { name: "group_3", description: "Group 3", instructions: "This is group 3.", tools: [tool("three")] },
    ],
  });
}

describe("reset_tools schema", () => {
  it("has one boolean per non-basic group with default false, no required list", () => {
    const [schema] = kit().getToolSchemas();
    expect(schema?.function.name).toBe("reset_tools");
    expect(schema?.function.description).toBe(DESCRIPTION);
    expect(JSON.stringify(schema?.function.parameters)).toBe(
      '{"properties":{"group_1":{"default":false,"description":"Group 1","type":"boolean"},"group_2":{"default":false,"description":"Group 2","type":"boolean"},"group_3":{"default":false,"description":"Group 3","type":"boolean"}},"type":"object"}',
    );
  });

  it("is always allowed and state-injected", () => {
    const meta = kit().getTool("reset_tools");
    expect(meta?.isStateInjected).toBe(true);
    expect(meta?.isConcurrencySafe).toBe(true);
    expect(meta?.checkPermissions({}, { mode: "default" } as never).behavior).toBe("allow");
  });
});

describe("reset_tools calls", () => {
  it("activates groups in registration order and appends the instructions (reference example)", async () => {
    const ctx = createHostContext();
    const r = await kit().callTool("reset_tools", { group_2: true, group_1: true }, ctx);
    expect(r.state).toBe("success");
    expect(textOf(r)).toBe(
      [
        "The currently activated tool group(s): group_1, group_2.",
        "<tool-instructions>",
        "The tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.",
        '<group name="group_2">This is group 2.</group>',
        "</tool-instructions>",
      ].join("\n"),
    );
    expect(ctx.activeGroups).toEqual(["group_1", "group_2"]);
  });

  it("puts the group elements of several instructions next to each other", async () => {
    const r = await kit().callTool("reset_tools", { group_3: true, group_2: true }, createHostContext());
    expect(textOf(r)).toContain(
      '\n<group name="group_2">This is group 2.</group><group name="group_3">This is group 3.</group>\n</tool-instructions>',
    );
  });

  it("overwrites the active set: groups not set to true are deactivated", async () => {
    const k = kit();
    const ctx = createHostContext({ activeGroups: ["group_1", "group_2"] });
    const r = await k.callTool("reset_tools", { group_1: false, group_3: true }, ctx);
    expect(textOf(r)).toBe(
      [
        "The currently activated tool group(s): group_3.",
        "<tool-instructions>",
        "The tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.",
        '<group name="group_3">This is group 3.</group>',
        "</tool-instructions>",
      ].join("\n"),
    );
    expect(ctx.activeGroups).toEqual(["group_3"]);
    expect([...k.availableTools(ctx.activeGroups).keys()]).toEqual(["reset_tools", "Bash", "three"]);
    expect(textOf(await k.callTool("two", {}, ctx))).toMatch(
      /^ToolGroupInactiveError: The tool 'two' in group 'group_2'/,
    );
  });

  it("deactivates everything with an empty input, without instructions", async () => {
    const ctx = createHostContext({ activeGroups: ["group_2"] });
    const r = await kit().callTool("reset_tools", {}, ctx);
    expect(textOf(r)).toBe("All tool groups are currently deactivated.");
    expect(ctx.activeGroups).toEqual([]);
  });

  it("re-activating an active group returns its instructions again (re-check)", async () => {
    const ctx = createHostContext({ activeGroups: ["group_2"] });
    const r = await kit().callTool("reset_tools", { group_2: true }, ctx);
    expect(textOf(r)).toContain('<group name="group_2">This is group 2.</group>');
  });

  it("prints the wrapper for an empty-string instruction but no group element", async () => {
    const k = new Toolkit({ groups: [{ name: "g", description: "G", instructions: "", tools: [] }] });
    const r = await k.callTool("reset_tools", { g: true }, createHostContext());
    expect(textOf(r)).toBe(
      "The currently activated tool group(s): g.\n<tool-instructions>\nThe tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.\n\n</tool-instructions>",
    );
  });

  it("rejects a non-boolean before changing anything", async () => {
    const ctx = createHostContext({ activeGroups: ["group_1"] });
    const r = await kit().callTool("reset_tools", { group_2: true, group_3: "yes" }, ctx);
    expect(r.state).toBe("error");
    expect(textOf(r)).toBe(
      "Invalid arguments: the argument group_3 should be a bool value, but got <class 'str'>.\nNo tool groups were changed.",
    );
    expect(ctx.activeGroups).toEqual(["group_1"]);
  });

  it("rejects unknown groups before changing anything, listing every problem", async () => {
    const ctx = createHostContext({ activeGroups: ["group_1"] });
    const r = await kit().callTool("reset_tools", { nope: true, group_1: 1, basic: true }, ctx);
    expect(r.state).toBe("error");
    expect(textOf(r)).toBe(
      [
        "Invalid arguments: 'nope' is not a tool group. The tool groups are: group_1, group_2, group_3.",
        "Invalid arguments: the argument group_1 should be a bool value, but got <class 'int'>.",
        "Invalid arguments: 'basic' is not a tool group. The tool groups are: group_1, group_2, group_3.",
        "No tool groups were changed.",
      ].join("\n"),
    );
    expect(ctx.activeGroups).toEqual(["group_1"]);
  });

  it("reports the new set through setActiveGroups even when the call names the active groups", async () => {
    const seen: string[][] = [];
    const ctx = createHostContext({ setActiveGroups: (g) => void seen.push(g) });
    await kit().callTool("reset_tools", { group_1: true }, ctx, { activeGroups: ["group_3"] });
    expect(seen).toEqual([["group_1"]]);
  });

  it("is an error result when the context cannot record the active set", async () => {
    const ctx = createHostContext({ setActiveGroups: undefined });
    const r = await kit().callTool("reset_tools", { group_1: true }, ctx);
    expect(r.state).toBe("error");
    expect(textOf(r)).toBe("reset_tools requires ToolRunContext.setActiveGroups.");
  });

  it("accepts a replacement response template", async () => {
    const k = new Toolkit({
      groups: [{ name: "g", description: "G", tools: [] }],
      metaToolResponse: (groups) => `on: ${groups.map((g) => g.name).join("+")}`,
    });
    expect(textOf(await k.callTool("reset_tools", { g: true }, createHostContext()))).toBe("on: g");
  });
});
