import { symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LocalSkillLoader } from "../../../src/toolkit/skills/local-skill-loader.js";
import { SkillSourceError } from "../../../src/toolkit/skills/skill-loader.js";
import { ToolkitConfigError } from "../../../src/toolkit/toolkit-errors.js";
import { cleanup, skillFolder, skillMd } from "./skill-folders.js";

afterAll(cleanup);

const summary = (skills: { name: string; description: string; dir: string; origin?: string }[]) =>
  skills.map(({ name, description, dir, origin }) => ({ name, description, dir, origin }));

describe("LocalSkillLoader without scanSubdir", () => {
  it("loads the directory as one skill: name, description, absolute dir, its SKILL.md as origin", async () => {
    const root = skillFolder({ "SKILL.md": skillMd("pdf", "Work with PDFs."), "run.sh": "echo\n" });
    const loader = new LocalSkillLoader({ directory: root });
    expect(loader.label).toBe(`LocalSkillLoader(${root})`);
    expect(summary(await loader.load())).toEqual([
      { name: "pdf", description: "Work with PDFs.", dir: root, origin: join(root, "SKILL.md") },
    ]);
  });

  it("ignores skills in sub-directories", async () => {
    const root = skillFolder({ "SKILL.md": skillMd("top", "Top."), "sub/SKILL.md": skillMd("sub", "Sub.") });
    expect((await new LocalSkillLoader({ directory: root }).load()).map((s) => s.name)).toEqual(["top"]);
  });

  it("makes a relative directory absolute", async () => {
    const root = skillFolder({ "a/SKILL.md": skillMd("rel", "Relative.") });
    const loader = new LocalSkillLoader({ directory: relative(process.cwd(), join(root, "a")) });
    expect(loader.directory).toBe(join(root, "a"));
    expect((await loader.load())[0]?.dir).toBe(join(root, "a"));
  });
});

describe("LocalSkillLoader with scanSubdir", () => {
  it("finds every directory that holds a SKILL.md, at any depth, in name order", async () => {
    const root = skillFolder({
      "sql/SKILL.md": skillMd("sql", "Query databases."),
      "office/pdf/SKILL.md": skillMd("pdf", "Work with PDFs."),
      "office/docx/SKILL.md": skillMd("docx", "Edit documents."),
      "office/docx/scripts/convert.py": "print()\n",
      "office/README.md": "not a skill\n",
      "empty/notes.txt": "nothing\n",
    });
    const loader = new LocalSkillLoader({ directory: root, scanSubdir: true });
    expect(loader.label).toBe(`LocalSkillLoader(${root}, scanSubdir)`);
    expect(summary(await loader.load())).toEqual([
      {
        name: "docx",
        description: "Edit documents.",
        dir: join(root, "office/docx"),
        origin: join(root, "office/docx/SKILL.md"),
      },
      {
        name: "pdf",
        description: "Work with PDFs.",
        dir: join(root, "office/pdf"),
        origin: join(root, "office/pdf/SKILL.md"),
      },
      {
        name: "sql",
        description: "Query databases.",
        dir: join(root, "sql"),
        origin: join(root, "sql/SKILL.md"),
      },
    ]);
  });

  it("includes the root itself and skills nested inside a skill", async () => {
    const root = skillFolder({
      "SKILL.md": skillMd("root", "The root."),
      "inner/SKILL.md": skillMd("inner", "Inside the root skill."),
    });
    const names = (await new LocalSkillLoader({ directory: root, scanSubdir: true }).load()).map(
      (s) => s.name,
    );
    expect(names).toEqual(["root", "inner"]);
  });

  it("does not follow symbolic links to directories", async () => {
    const outside = skillFolder({ "SKILL.md": skillMd("outside", "Elsewhere.") });
    const root = skillFolder({ "own/SKILL.md": skillMd("own", "Here.") });
    symlinkSync(outside, join(root, "link"));
    const names = (await new LocalSkillLoader({ directory: root, scanSubdir: true }).load()).map(
      (s) => s.name,
    );
    expect(names).toEqual(["own"]);
  });
});

describe("LocalSkillLoader errors name the source and the file", () => {
  const load = (directory: string, scanSubdir = false) =>
    new LocalSkillLoader({ directory, scanSubdir }).load();

  it("a directory that does not exist", async () => {
    const missing = join(skillFolder({}), "nope");
    const err = await load(missing).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SkillSourceError);
    expect(err).toBeInstanceOf(ToolkitConfigError);
    expect((err as Error).message).toBe(
      `Skill source LocalSkillLoader(${missing}): the directory ${missing} does not exist.`,
    );
    expect((err as SkillSourceError).file).toBe(missing);
    const underFile = join(skillFolder({ "x.txt": "x" }), "x.txt", "sub");
    await expect(load(underFile)).rejects.toThrow(`the directory ${underFile} does not exist.`);
  });

  it("a path that is a file", async () => {
    const file = join(skillFolder({ "x.txt": "x" }), "x.txt");
    await expect(load(file)).rejects.toThrow(
      `Skill source LocalSkillLoader(${file}): ${file} is not a directory.`,
    );
  });

  it("a missing SKILL.md, with and without scanSubdir", async () => {
    const root = skillFolder({ "notes.txt": "x", "sub/readme.md": "y" });
    await expect(load(root)).rejects.toThrow(
      `Skill source LocalSkillLoader(${root}): ${root}/SKILL.md does not exist (without scanSubdir the directory must be one skill).`,
    );
    await expect(load(root, true)).rejects.toThrow(
      `Skill source LocalSkillLoader(${root}, scanSubdir): no SKILL.md in ${root} or any of its sub-directories.`,
    );
  });

  it.each([
    [
      "no front matter",
      "# Just a body\n",
      "SKILL.md must start with YAML front matter (between '---' lines) with name and description.",
    ],
    ["no description", "---\nname: pdf\n---\nbody\n", "The front matter has no 'description'."],
    [
      "no name and no description",
      "---\ntitle: x\n---\nbody\n",
      "The front matter has no 'name'. The front matter has no 'description'.",
    ],
    [
      "a bad name",
      "---\nname: Bad Name\ndescription: d\n---\n",
      "The name 'Bad Name' must match ^[a-z0-9][a-z0-9-]{0,63}$.",
    ],
  ])("bad front matter: %s", async (_label, text, problem) => {
    const root = skillFolder({ "good/SKILL.md": skillMd("good", "Fine."), "bad/SKILL.md": text });
    const file = join(root, "bad/SKILL.md");
    const err = (await load(root, true).catch((e: unknown) => e)) as SkillSourceError;
    expect(err.message).toBe(`Skill source LocalSkillLoader(${root}, scanSubdir): ${file}: ${problem}`);
    expect(err.file).toBe(file);
  });

  it("a SKILL.md that is not UTF-8", async () => {
    const root = skillFolder({});
    writeFileSync(join(root, "SKILL.md"), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe]));
    await expect(load(root)).rejects.toThrow(`${root}/SKILL.md: SKILL.md must be UTF-8 text.`);
  });

  it("a SKILL.md that cannot be read (here: a directory of that name)", async () => {
    const root = skillFolder({ "SKILL.md/x": "not a file" });
    await expect(load(root)).rejects.toThrow(`${root}/SKILL.md cannot be read (EISDIR).`);
  });
});

describe("LocalSkillLoader as the viewer's source", () => {
  it("reads SKILL.md when asked, so an edited body shows without reloading", async () => {
    const root = skillFolder({ "SKILL.md": skillMd("pdf", "Work with PDFs.", "# Old") });
    const loader = new LocalSkillLoader({ directory: root });
    const [skill] = await loader.load();
    expect(skill?.source).toBe(loader);
    writeFileSync(join(root, "SKILL.md"), skillMd("pdf", "Work with PDFs.", "# New"));
    expect(await loader.readSkillMd(skill!)).toContain("# New");
  });
});
