import { describe, expect, it } from "vitest";
import { parseSkillMd } from "../../../src/toolkit/skills/skill-md.js";
import { checkSkillMeta } from "../../../src/toolkit/skills/skill-meta.js";

describe("parseSkillMd", () => {
  it("reads name and description and trims the body", () => {
    expect(
      parseSkillMd("---\nname: pdf\ndescription: Work with PDFs # a comment\n---\n\n  # PDF\n\nbody\n\n"),
    ).toEqual({
      fields: { name: "pdf", description: "Work with PDFs" },
      body: "# PDF\n\nbody",
      hasFrontMatter: true,
    });
  });

  it("handles quotes, CRLF, a BOM, folded and literal blocks, and skips nested values", () => {
    const text = [
      "\uFEFF---",
      "name: 'it''s'",
      'title: "a \\"b\\"\\n"',
      "description: >-",
      "  Folded",
      "  text",
      "notes: |",
      "  line 1",
      "  line 2",
      "tags:",
      "  - a",
      "  - b",
      "---",
      "Body",
    ].join("\r\n");
    expect(parseSkillMd(text)).toEqual({
      fields: { name: "it's", title: 'a "b"\n', description: "Folded text", notes: "line 1\nline 2\n" },
      body: "Body",
      hasFrontMatter: true,
    });
  });

  it("treats text without a closed front matter as all body", () => {
    expect(parseSkillMd("---\nname: x\n").hasFrontMatter).toBe(false);
    expect(parseSkillMd("# Title\n").body).toBe("# Title");
  });

  it("keeps quoted keys and scalars as written", () => {
    const text = ["---", '"name": pdf', "'description': Fill forms", "version: 1.0", "---", "x"].join("\n");
    expect(parseSkillMd(text).fields).toEqual({ name: "pdf", description: "Fill forms", version: "1.0" });
  });

  it("names invalid YAML instead of guessing", () => {
    const parsed = parseSkillMd("---\nname: [x\n---\nbody");
    expect(parsed.hasFrontMatter).toBe(true);
    expect(parsed.error).toBeTruthy();
    expect(checkSkillMeta("---\nname: [x\n---\nbody")).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/not valid YAML/)],
    });
  });
});
