import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHostContext } from "../../../src/toolkit/host-context.js";
import { type Skill, sandboxSkillSource } from "../../../src/toolkit/skills/skill.js";
import { Toolkit } from "../../../src/toolkit/toolkit.js";
import { FakeSandbox } from "../../support/fake-sandbox.js";

const textOf = (r: { content: { type: string; text?: string }[] }) =>
  r.content.map((b) => b.text ?? "").join("");

const pdf: Skill = {
  name: "pdf",
  description: "Work with PDF files.",
  dir: "/skills/pdf",
  markdown: "# PDF\nUse it.",
};
const sql: Skill = { name: "sql", description: "Query databases.", dir: "/skills/sql", markdown: "# SQL" };

function kit(): Toolkit {
  return new Toolkit({
    skills: [pdf],
    groups: [{ name: "db", description: "Databases", tools: [], skills: [sql] }],
  });
}

describe("the Skill viewer", () => {
  it("has the reference's description, schema and flags", () => {
    const schema = kit().getToolSchemas()[0];
    expect(schema?.function.name).toBe("Skill");
    expect(schema?.function.description).toBe(
      "Retrieve a skill within the conversation. When users asks you to perform tasks, check if any of the available skills match. Skills provide specialized capabilities and domain knowledge.",
    );
    expect(JSON.stringify(schema?.function.parameters)).toBe(
      '{"type":"object","properties":{"skill":{"type":"string","description":"The exact name of the skill to view. "}},"required":["skill"]}',
    );
    const viewer = kit().getTool("Skill");
    expect([viewer?.isReadOnly, viewer?.isConcurrencySafe, viewer?.isStateInjected]).toEqual([
      true,
      true,
      true,
    ]);
    expect(viewer?.checkPermissions({}, {} as never).behavior).toBe("allow");
  });

  it("returns the markdown of a visible skill", async () => {
    const r = await kit().callTool("Skill", { skill: "pdf" }, createHostContext());
    expect(r).toMatchObject({ state: "success" });
    expect(textOf(r)).toBe("# PDF\nUse it.");
  });

  it("does not find an unknown skill or one in an inactive group", async () => {
    for (const name of ["nope", "sql"]) {
      const r = await kit().callTool("Skill", { skill: name }, createHostContext());
      expect(r.state).toBe("error");
      expect(textOf(r)).toBe(`SkillNotFoundError: Skill '${name}' not found.`);
    }
    const active = await kit().callTool(
      "Skill",
      { skill: "sql" },
      createHostContext({ activeGroups: ["db"] }),
    );
    expect(textOf(active)).toBe("# SQL");
  });

  it("validates its input", async () => {
    const r = await kit().callTool("Skill", {}, createHostContext());
    expect(textOf(r)).toBe("Input validation failed for tool 'Skill': 'skill' is a required property");
  });

  describe("reading SKILL.md through a SkillSource", () => {
    const sandbox = FakeSandbox.create();
    afterAll(() => sandbox.dispose());
    const dir = join(sandbox.root, "skills", "pdf");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "SKILL.md"), "---\nname: pdf\ndescription: d\n---\n\n# From disk\n");
    const onDisk: Skill = { name: "pdf", description: "d", dir };

    it("reads the file through the sandbox and returns the trimmed body", async () => {
      const k = new Toolkit({ skills: [onDisk], skillSource: sandboxSkillSource() });
      const r = await k.callTool("Skill", { skill: "pdf" }, createHostContext({ sandbox }));
      expect(textOf(r)).toBe("# From disk");
    });

    it("is an error result without a source", async () => {
      const r = await new Toolkit({ skills: [onDisk] }).callTool(
        "Skill",
        { skill: "pdf" },
        createHostContext(),
      );
      expect(r.state).toBe("error");
      expect(textOf(r)).toBe("No SkillSource is configured to read the skill 'pdf'.");
    });
  });
});

describe("the skills system-prompt fragment", () => {
  it("is null when no skill is visible", () => {
    expect(new Toolkit().getSkillInstructions()).toBeNull();
    expect(
      new Toolkit({
        groups: [{ name: "g", description: "G", tools: [], skills: [sql] }],
      }).getSkillInstructions(),
    ).toBeNull();
  });

  it("lists the visible skills with the exact template and no trailing newline", () => {
    expect(kit().getSkillInstructions(["db"])).toBe(
      [
        "<agent-skills>",
        "Skills are a collection of instructions, scripts, and resources to extend your capabilities.",
        "",
        "**IMPORTANT**: Skills are NOT tools, and you cannot call a skill directly. To use a skill, you MUST use the `Skill` tool to read the skill's full instructions, and then follow those instructions to use the tools and resources provided by the skill.",
        "",
        "# Available Skills:",
        "<skill>",
        "<name>pdf</name>",
        "<description>Work with PDF files.</description>",
        "<dir>/skills/pdf</dir>",
        "</skill><skill>",
        "<name>sql</name>",
        "<description>Query databases.</description>",
        "<dir>/skills/sql</dir>",
        "</skill>",
        "</agent-skills>",
      ].join("\n"),
    );
  });
});
