import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctionTool } from "../../src/toolkit/function-tool.js";
import { createHostContext } from "../../src/toolkit/host-context.js";
import type { Skill } from "../../src/toolkit/skills/skill.js";
import type { ToolGroup } from "../../src/toolkit/tool-group.js";
import { Toolkit } from "../../src/toolkit/toolkit.js";
import { ToolkitConfigError } from "../../src/toolkit/toolkit-errors.js";

function tool(name: string): FunctionTool {
  return new FunctionTool({
    name,
    description: `${name} tool`,
    schema: z.object({}),
    fn: () => `${name} ran`,
  });
}

function skill(name: string): Skill {
  return { name, description: `${name} skill`, dir: `/skills/${name}`, markdown: `# ${name}` };
}

const textOf = (r: { content: { type: string; text?: string }[] }) =>
  r.content.map((b) => b.text ?? "").join("");

function group(name: string, extra: Partial<ToolGroup> = {}): ToolGroup {
  return { name, description: `Group ${name}`, tools: [], ...extra };
}

describe("ToolGroup construction", () => {
  it.each([
    ["a group named basic", [group("basic")], "The tool group name 'basic' is reserved."],
    ["duplicate groups", [group("g"), group("g")], "Tool groups must not contain duplicate tool groups."],
    [
      "a missing description",
      [group("g", { description: "" })],
      "The tool group description is required for tool group 'g'.",
    ],
  ])("rejects %s", (_label, groups, message) => {
    expect(() => new Toolkit({ groups })).toThrow(new ToolkitConfigError(message));
  });

  it("rejects a tool named Skill when skills exist, and allows it otherwise", () => {
    expect(() => new Toolkit({ tools: [tool("Skill")], skills: [skill("pdf")] })).toThrow(
      "Tool name 'Skill' in group 'basic' collides with the toolkit's built-in 'Skill' tool.",
    );
    expect(() => new Toolkit({ tools: [tool("Skill")] })).not.toThrow();
  });

  it("rejects duplicate skills and skills named like a tool, naming both groups", () => {
    expect(
      () => new Toolkit({ skills: [skill("pdf")], groups: [group("g", { skills: [skill("pdf")] })] }),
    ).toThrow("Duplicate skill name 'pdf': registered in group 'basic' and again in group 'g'.");
    expect(
      () => new Toolkit({ tools: [tool("pdf")], groups: [group("g", { skills: [skill("pdf")] })] }),
    ).toThrow("Skill name 'pdf' in group 'g' collides with the tool 'pdf' in group 'basic'.");
  });

  it("rejects an MCP tool that collides with a group tool", () => {
    const mcps = [{ name: "srv", tools: [tool("mcp__srv__q")] }];
    expect(() => new Toolkit({ mcps, groups: [group("g", { tools: [tool("mcp__srv__q")] })] })).toThrow(
      /Duplicate tool name 'mcp__srv__q'/,
    );
  });
});

describe("availability order", () => {
  const kit = new Toolkit({
    tools: [tool("Bash"), tool("Read")],
    mcps: [{ name: "srv", tools: [tool("mcp__srv__a")] }],
    groups: [
      group("db", { tools: [tool("query")], skills: [skill("sql")] }),
      group("deploy", { tools: [tool("ship")], mcps: [{ name: "k8s", tools: [tool("mcp__k8s__apply")] }] }),
    ],
  });

  it("puts Skill (only while a skill is visible) and reset_tools first, then basic and active groups", () => {
    expect([...kit.availableTools().keys()]).toEqual(["reset_tools", "Bash", "Read", "mcp__srv__a"]);
    expect([...kit.availableTools(["deploy", "db"]).keys()]).toEqual([
      "Skill",
      "reset_tools",
      "Bash",
      "Read",
      "mcp__srv__a",
      "query",
      "ship",
      "mcp__k8s__apply",
    ]);
  });

  it("has neither meta tool with no groups and no skills", () => {
    expect([...new Toolkit({ tools: [tool("a")] }).availableTools().keys()]).toEqual(["a"]);
  });

  it("lists Skill for basic skills even without groups", () => {
    expect([...new Toolkit({ skills: [skill("pdf")] }).availableTools().keys()]).toEqual(["Skill"]);
  });

  it("finds every registered tool with getTool, active or not", () => {
    expect(kit.getTool("ship")?.name).toBe("ship");
    expect(kit.getTool("reset_tools")?.name).toBe("reset_tools");
    expect(kit.getTool("Skill")?.name).toBe("Skill");
    expect(kit.groupOf("mcp__k8s__apply")?.name).toBe("deploy");
  });

  it("answers a tool of an inactive group with the group and how to activate it", async () => {
    const r = await kit.callTool("mcp__k8s__apply", {}, createHostContext());
    expect(r.state).toBe("error");
    expect(textOf(r)).toBe(
      "ToolGroupInactiveError: The tool 'mcp__k8s__apply' in group 'deploy' is currently inactive. You should first activate the group by calling the 'reset_tools' tool.",
    );
    expect(kit.resolve("ship", ["deploy"])).toMatchObject({ ok: true });
    expect(kit.resolve("nope")).toEqual({
      ok: false,
      message: "ToolNotFoundError: The tool named 'nope' doesn't exist.",
    });
  });

  it("takes the active groups from the context when the call does not name them", async () => {
    const r = await kit.callTool("ship", {}, createHostContext({ activeGroups: ["deploy"] }));
    expect(textOf(r)).toBe("ship ran");
  });
});
