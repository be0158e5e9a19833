import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctionTool } from "../../../src/toolkit/function-tool.js";
import { createHostContext } from "../../../src/toolkit/host-context.js";
import { LocalSkillLoader } from "../../../src/toolkit/skills/local-skill-loader.js";
import type { Skill } from "../../../src/toolkit/skills/skill.js";
import { SkillLoaderBase, SkillSourceError } from "../../../src/toolkit/skills/skill-loader.js";
import { defaultSkillInstructions } from "../../../src/toolkit/skills/skill-prompt.js";
import { Toolkit } from "../../../src/toolkit/toolkit.js";
import { ToolkitConfigError } from "../../../src/toolkit/toolkit-errors.js";
import { cleanup, skillFolder, skillMd, textOf } from "./skill-folders.js";

afterAll(cleanup);

const inline: Skill = { name: "notes", description: "Take notes.", dir: "/s/notes", markdown: "# Notes" };

/** A loader over an in-memory list, as a host would write one (a database, a registry). */
class ListLoader extends SkillLoaderBase {
  readonly label = "ListLoader(test)";
  loads = 0;
  constructor(private readonly skills: Skill[]) {
    super();
  }
  async load(): Promise<Skill[]> {
    this.loads += 1;
    return this.skills;
  }
}

describe("Toolkit.create with each kind of skill source", () => {
  const pdfDir = skillFolder({ "SKILL.md": skillMd("pdf", "Work with PDFs.", "# PDF\n\nRun scripts/x.py.") });
  const folder = skillFolder({
    "sql/SKILL.md": skillMd("sql", "Query databases."),
    "office/docx/SKILL.md": skillMd("docx", "Edit documents."),
  });

  it("takes a directory path, a Skill record and loaders, in source order", async () => {
    const list = new ListLoader([
      { name: "lint", description: "Lint code.", dir: "/x/lint", markdown: "# Lint" },
    ]);
    const kit = await Toolkit.create({
      skills: [pdfDir, inline, new LocalSkillLoader({ directory: folder, scanSubdir: true }), list],
    });
    expect([...kit.visibleSkills().keys()]).toEqual(["pdf", "notes", "docx", "sql", "lint"]);
    expect(list.loads).toBe(1);
    expect(kit.getToolSchemas().map((s) => s.function.name)).toEqual(["Skill"]);
    // The fragment is exactly what the same records would give, with the host dirs.
    const records = [
      ["pdf", "Work with PDFs.", pdfDir],
      ["notes", "Take notes.", "/s/notes"],
      ["docx", "Edit documents.", `${folder}/office/docx`],
      ["sql", "Query databases.", `${folder}/sql`],
      ["lint", "Lint code.", "/x/lint"],
    ].map(([name, description, dir]) => ({ name: name!, description: description!, dir: dir! }));
    expect(kit.getSkillInstructions()).toBe(defaultSkillInstructions(records));
    expect(kit.getSkillInstructions()).toContain(
      `<name>pdf</name>\n<description>Work with PDFs.</description>\n<dir>${pdfDir}</dir>`,
    );
  });

  it("the viewer returns each skill's body, read from disk for folder skills", async () => {
    const kit = await Toolkit.create({ skills: [pdfDir, inline] });
    const ctx = createHostContext();
    expect(textOf(await kit.callTool("Skill", { skill: "pdf" }, ctx))).toBe("# PDF\n\nRun scripts/x.py.");
    expect(textOf(await kit.callTool("Skill", { skill: "notes" }, ctx))).toBe("# Notes");
  });

  it("a directory path does not scan sub-directories", async () => {
    await expect(Toolkit.create({ skills: [folder] })).rejects.toThrow(
      `Skill source LocalSkillLoader(${folder}): ${folder}/SKILL.md does not exist (without scanSubdir the directory must be one skill).`,
    );
  });

  it("a removed SKILL.md is an error result of the viewer, not a crash", async () => {
    const dir = skillFolder({ "SKILL.md": skillMd("gone", "Soon gone.") });
    const kit = await Toolkit.create({ skills: [dir] });
    writeFileSync(join(dir, "SKILL.md"), "");
    const empty = await kit.callTool("Skill", { skill: "gone" }, createHostContext());
    expect([empty.state, textOf(empty)]).toEqual(["success", ""]);
    rmSync(join(dir, "SKILL.md"));
    const r = await kit.callTool("Skill", { skill: "gone" }, createHostContext());
    expect(r.state).toBe("error");
    expect(textOf(r)).toMatch(/ENOENT/);
  });
});

describe("skill source errors at Toolkit.create", () => {
  it("a name used by two sources is a registration error naming both files", async () => {
    const a = skillFolder({ "SKILL.md": skillMd("pdf", "First.") });
    const b = skillFolder({ "pdf/SKILL.md": skillMd("pdf", "Second.") });
    const err = await Toolkit.create({
      skills: [a],
      groups: [
        {
          name: "docs",
          description: "Docs.",
          tools: [],
          skills: [new LocalSkillLoader({ directory: b, scanSubdir: true })],
        },
      ],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolkitConfigError);
    expect((err as Error).message).toBe(
      `Duplicate skill name 'pdf': registered in group 'basic' (${a}/SKILL.md) and again in group 'docs' (${b}/pdf/SKILL.md).`,
    );
    await expect(
      Toolkit.create({ skills: [a, new LocalSkillLoader({ directory: b, scanSubdir: true })] }),
    ).rejects.toThrow(
      `registered in group 'basic' (${a}/SKILL.md) and again in group 'basic' (${b}/pdf/SKILL.md).`,
    );
    // A loader that gives no origin is named by its label; a plain record by its group alone.
    const listed = new ListLoader([{ name: "pdf", description: "Listed.", dir: "/x/pdf", markdown: "#" }]);
    await expect(Toolkit.create({ skills: [{ ...inline, name: "pdf" }, listed] })).rejects.toThrow(
      "Duplicate skill name 'pdf': registered in group 'basic' and again in group 'basic' (ListLoader(test)).",
    );
  });

  it("a folder skill named like a tool collides, naming the file", async () => {
    const dir = skillFolder({ "SKILL.md": skillMd("add", "Adds.") });
    const add = new FunctionTool({ name: "add", description: "Add.", schema: z.object({}), fn: () => "0" });
    await expect(Toolkit.create({ tools: [add], skills: [dir] })).rejects.toThrow(
      `Skill name 'add' in group 'basic' (${dir}/SKILL.md) collides with the tool 'add' in group 'basic'.`,
    );
  });

  it("a path that does not exist, and a bad SKILL.md inside a group's folder", async () => {
    const missing = join(skillFolder({}), "missing");
    await expect(Toolkit.create({ skills: [missing] })).rejects.toThrow(
      `Skill source LocalSkillLoader(${missing}): the directory ${missing} does not exist.`,
    );
    const bad = skillFolder({ "x/SKILL.md": "---\nname: x\n---\n" });
    const groups = [
      {
        name: "g",
        description: "G.",
        tools: [],
        skills: [new LocalSkillLoader({ directory: bad, scanSubdir: true })],
      },
    ];
    await expect(Toolkit.create({ groups })).rejects.toThrow(
      `Skill source LocalSkillLoader(${bad}, scanSubdir): ${bad}/x/SKILL.md: The front matter has no 'description'.`,
    );
  });

  it("a loader that throws or returns something else names the loader", async () => {
    class Broken extends SkillLoaderBase {
      readonly label = "Broken(db)";
      async load(): Promise<Skill[]> {
        throw new Error("connection refused");
      }
    }
    await expect(Toolkit.create({ skills: [new Broken()] })).rejects.toThrow(
      new SkillSourceError("Broken(db)", "connection refused"),
    );
    const odd = new ListLoader([{ name: "x" } as Skill]);
    await expect(Toolkit.create({ skills: [odd] })).rejects.toThrow(
      'Skill source ListLoader(test): load() returned something that is not a skill: {"name":"x"}.',
    );
  });

  it("anything else is 'Invalid skill or loader'", async () => {
    await expect(Toolkit.create({ skills: [42 as unknown as string] })).rejects.toThrow(
      new ToolkitConfigError("Invalid skill or loader: 42."),
    );
  });

  it("the constructor takes loaded records only and says to use Toolkit.create", () => {
    const loader = new LocalSkillLoader({ directory: "/srv/skills" });
    expect(() => new Toolkit({ skills: ["/srv/skills" as unknown as Skill] })).toThrow(
      "The skill source '/srv/skills' in group 'basic' must be loaded first: build the toolkit with 'await Toolkit.create(...)'.",
    );
    expect(
      () =>
        new Toolkit({
          groups: [{ name: "g", description: "G.", tools: [], skills: [loader as unknown as Skill] }],
        }),
    ).toThrow("The skill source LocalSkillLoader(/srv/skills) in group 'g' must be loaded first");
    expect(() => new Toolkit({ skills: [{ name: 1 } as unknown as Skill] })).toThrow(
      `Invalid skill or loader in group 'basic': {"name":1}.`,
    );
  });
});

describe("a group whose skills come from a loader", () => {
  const folder = skillFolder({
    "review/SKILL.md": skillMd("review", "Review a change.", "# Review\n\nRead the diff first."),
    "deep/nested/release/SKILL.md": skillMd("release", "Cut a release.", "# Release"),
  });
  const build = () =>
    Toolkit.create({
      skills: [inline],
      groups: [
        {
          name: "shipping",
          description: "Review and release work.",
          instructions: "Follow the skills' steps in order.",
          tools: [],
          skills: [new LocalSkillLoader({ directory: folder, scanSubdir: true })],
        },
      ],
    });

  it("is invisible until reset_tools activates it, then listed and readable; hidden again after", async () => {
    const kit = await build();
    const ctx = createHostContext();
    const hidden = await kit.callTool("Skill", { skill: "review" }, ctx);
    expect([hidden.state, textOf(hidden)]).toEqual([
      "error",
      "SkillNotFoundError: Skill 'review' not found.",
    ]);
    expect(kit.getSkillInstructions(ctx.activeGroups)).not.toContain("review");

    const on = await kit.callTool("reset_tools", { shipping: true }, ctx);
    expect(textOf(on)).toContain("The currently activated tool group(s): shipping.");
    expect(textOf(on)).toContain('<group name="shipping">Follow the skills\' steps in order.</group>');
    expect(ctx.activeGroups).toEqual(["shipping"]);
    expect([...kit.visibleSkills(ctx.activeGroups).keys()]).toEqual(["notes", "release", "review"]);
    expect(kit.getSkillInstructions(ctx.activeGroups)).toContain(
      `<skill>\n<name>release</name>\n<description>Cut a release.</description>\n<dir>${folder}/deep/nested/release</dir>\n</skill>`,
    );
    expect(textOf(await kit.callTool("Skill", { skill: "review" }, ctx))).toBe(
      "# Review\n\nRead the diff first.",
    );
    expect(textOf(await kit.callTool("Skill", { skill: "release" }, ctx))).toBe("# Release");

    await kit.callTool("reset_tools", {}, ctx);
    expect(ctx.activeGroups).toEqual([]);
    const off = await kit.callTool("Skill", { skill: "release" }, ctx);
    expect(off.state).toBe("error");
  });

  it("lists Skill and reset_tools even while only basic skills are visible", async () => {
    const kit = await build();
    expect(kit.getToolSchemas().map((s) => s.function.name)).toEqual(["Skill", "reset_tools"]);
    const noBasic = await Toolkit.create({
      groups: [
        {
          name: "shipping",
          description: "D.",
          tools: [],
          skills: [new LocalSkillLoader({ directory: folder, scanSubdir: true })],
        },
      ],
    });
    expect(noBasic.getToolSchemas().map((s) => s.function.name)).toEqual(["reset_tools"]);
    expect(noBasic.getToolSchemas(["shipping"]).map((s) => s.function.name)).toEqual([
      "Skill",
      "reset_tools",
    ]);
  });
});
