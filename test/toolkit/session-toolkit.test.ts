import { describe, expect, it } from "vitest";
import { createBuiltinTools } from "../../src/toolkit/builtins.js";
import { ExternalTool, externalTool } from "../../src/toolkit/external-tool.js";
import { createHostContext } from "../../src/toolkit/host-context.js";
import { buildSessionToolkit, listSessionTools } from "../../src/toolkit/session-toolkit.js";
import type { Skill } from "../../src/toolkit/skills/skill.js";
import { createTaskTools } from "../../src/toolkit/tasks/task-tools.js";
import { ToolkitConfigError } from "../../src/toolkit/toolkit-errors.js";

const approval = {
  name: "HumanApproval",
  description: "Ask a human to approve an action.",
  inputSchema: {
    type: "object",
    properties: { action: { type: "string", title: "Action" }, reason: { type: "string" } },
    required: ["action", "reason"],
  },
};

const skill = (name: string): Skill => ({
  name,
  description: `${name} skill`,
  dir: `/skills/${name}`,
  markdown: name,
});

describe("external tools", () => {
  it("are external, never run, and use the external permission face", async () => {
    const t = externalTool(approval);
    expect([t.isExternalTool, t.isReadOnly, t.isConcurrencySafe]).toEqual([true, false, false]);
    expect(t.checkPermissions({}, {} as never)).toMatchObject({ behavior: "allow" });
    expect(t.generateSuggestions({}, {} as never)).toEqual([
      { toolName: "HumanApproval", ruleContent: null, behavior: "allow", source: "suggested" },
    ]);
    expect(() => t.call({}, createHostContext())).toThrow(
      "HumanApproval is an external tool and should not be called directly.",
    );
    expect(new ExternalTool({ ...approval, readOnly: true }).isConcurrencySafe).toBe(true);
  });

  it("reject bad names and schemas at definition", () => {
    expect(() => externalTool({ ...approval, name: "bad name" })).toThrow(ToolkitConfigError);
    expect(() => externalTool({ ...approval, inputSchema: { type: "string" } })).toThrow(
      /Invalid input_schema/,
    );
  });
});

describe("buildSessionToolkit", () => {
  const base = {
    builtins: [...createBuiltinTools(), ...createTaskTools()],
    externalTools: [approval],
    skills: [skill("pdf"), skill("sql")],
    groups: [
      {
        name: "planning",
        description: "Task tracking.",
        tools: ["TaskCreate", "TaskGet", "TaskList", "TaskUpdate"],
      },
      {
        name: "db",
        description: "Databases.",
        instructions: "Read only.",
        tools: ["HumanApproval"],
        skills: ["sql"],
      },
    ],
  };

  it("puts group members in their groups and the rest of the session's selection in basic", () => {
    const { listing, activeGroups } = buildSessionToolkit({ ...base, basicTools: ["Read", "Bash"] });
    expect(activeGroups).toEqual([]);
    expect(listing.tools.map((t) => t.name)).toEqual(["Skill", "reset_tools", "Read", "Bash"]);
    expect(listing.systemPrompt).toContain("<name>pdf</name>");
    expect(listing.systemPrompt).not.toContain("<name>sql</name>");
  });

  it("lists active groups in registration order, titles stripped, and drops vanished groups", () => {
    const { listing, activeGroups, toolkit } = buildSessionToolkit({ ...base, activeGroups: ["db", "gone"] });
    expect(activeGroups).toEqual(["db"]);
    expect(listing.tools.map((t) => t.name)).toEqual([
      "Skill",
      "reset_tools",
      "Bash",
      "Read",
      "Write",
      "Edit",
      "Glob",
      "Grep",
      "HumanApproval",
    ]);
    expect(listing.tools.at(-1)?.inputSchema).toEqual({
      type: "object",
      properties: { action: { type: "string" }, reason: { type: "string" } },
      required: ["action", "reason"],
    });
    expect(listing.systemPrompt).toContain("<name>sql</name>");
    expect(listSessionTools(toolkit, [])).not.toEqual(listing);
  });

  it("gives an empty system prompt without skills", () => {
    expect(buildSessionToolkit({ builtins: createBuiltinTools() }).listing.systemPrompt).toBe("");
  });

  it.each([
    [{ basicTools: ["Nope"] }, "Unknown tool 'Nope' in group 'basic'."],
    [{ groups: [{ name: "g", description: "G", tools: ["Nope"] }] }, "Unknown tool 'Nope' in group 'g'."],
    [
      { groups: [{ name: "g", description: "G", tools: [], skills: ["x"] }] },
      "Unknown skill 'x' in group 'g'.",
    ],
    [{ externalTools: [{ ...approval, name: "Bash" }] }, "Duplicate tool name 'Bash'."],
    [
      {
        groups: [
          { name: "a", description: "A", tools: ["Bash"] },
          { name: "b", description: "B", tools: ["Bash"] },
        ],
      },
      "Duplicate tool name 'Bash': registered in group 'a' and again in group 'b'.",
    ],
  ])("rejects bad configuration (%#)", (extra, message) => {
    expect(() => buildSessionToolkit({ builtins: createBuiltinTools(), ...extra })).toThrow(
      new ToolkitConfigError(message),
    );
  });

  it("runs a session: reset_tools, then a task tool of the newly active group", async () => {
    const { toolkit } = buildSessionToolkit(base);
    const ctx = createHostContext();
    const reset = await toolkit.callTool("reset_tools", { planning: true }, ctx);
    expect(reset.content[0]).toMatchObject({ text: "The currently activated tool group(s): planning." });
    const created = await toolkit.callTool("TaskCreate", { subject: "S", description: "D" }, ctx);
    expect(created.content[0]).toMatchObject({ text: "Task (id=1) created successfully: S" });
  });
});
