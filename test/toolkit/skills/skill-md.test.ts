import { describe, expect, it } from "vitest";
import { parseSkillMd } from "../../../src/toolkit/skills/skill-md.js";

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
});
