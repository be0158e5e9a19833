import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_SKILL_UPLOAD_LIMITS,
  type SkillUploadResult,
  validateSkillUpload,
} from "../../../src/toolkit/skills/skill-upload.js";
import { makeTarGz } from "./make-tar.js";

const SKILL_MD =
  "---\nname: pdf-tools\ndescription: Work with PDF files.\n---\n\n# PDF tools\n\nRun scripts/x.py.\n";

function errorsOf(r: SkillUploadResult): { path: string; message: string }[] {
  expect(r.ok).toBe(false);
  return r.ok ? [] : r.errors;
}

describe("validateSkillUpload: JSON file maps", () => {
  it("normalizes a valid upload", () => {
    const r = validateSkillUpload({ "scripts/x.py": "print(1)\n", "./SKILL.md": SKILL_MD });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.skill).toMatchObject({
      name: "pdf-tools",
      description: "Work with PDF files.",
      markdown: "# PDF tools\n\nRun scripts/x.py.",
    });
    expect(r.skill.files.map((f) => f.path)).toEqual(["SKILL.md", "scripts/x.py"]);
    expect(r.skill.files[1]?.content.toString()).toBe("print(1)\n");
  });

  it.each([
    ["../evil.sh", "Path traversal ('..') is not allowed."],
    ["a/../../b", "Path traversal ('..') is not allowed."],
    ["/etc/passwd", "Absolute paths are not allowed."],
    ["C:/x", "Absolute paths are not allowed."],
    ["a\\b", "Use '/' as the path separator, not '\\'."],
    ["a\u0000b", "The path has control characters."],
    ["", "Empty path."],
  ])("rejects the path %j", (path, message) => {
    expect(errorsOf(validateSkillUpload({ "SKILL.md": SKILL_MD, [path]: "x" }))).toEqual([{ path, message }]);
  });

  it("rejects non-string content and duplicate paths after normalization", () => {
    expect(errorsOf(validateSkillUpload({ "SKILL.md": SKILL_MD, "a.txt": 5, "./b": "1", b: "2" }))).toEqual([
      { path: "a.txt", message: "File content must be a string." },
      { path: "b", message: "Duplicate path." },
    ]);
  });

  it("rejects a path that is both a file and a directory", () => {
    expect(errorsOf(validateSkillUpload({ "SKILL.md": SKILL_MD, a: "1", "a/b/c": "2" }))).toEqual([
      { path: "a", message: "The path is both a file and a directory." },
    ]);
  });

  it.each([
    [{ "README.md": "x" }, "SKILL.md is required at the root of the skill."],
    [
      { "SKILL.md": "# No front matter" },
      "SKILL.md must start with YAML front matter (between '---' lines) with name and description.",
    ],
    [{ "SKILL.md": "---\ndescription: d\n---\nbody" }, "The front matter has no 'name'."],
    [{ "SKILL.md": "---\nname: ok\n---\nbody" }, "The front matter has no 'description'."],
    [
      { "SKILL.md": "---\nname: Bad_Name\ndescription: d\n---\n" },
      "The name 'Bad_Name' must match ^[a-z0-9][a-z0-9-]{0,63}$.",
    ],
  ])("checks SKILL.md front matter (%#)", (files, message) => {
    expect(errorsOf(validateSkillUpload(files))).toEqual([{ path: "SKILL.md", message }]);
  });

  it("rejects a skill that is too big or has too many files", () => {
    const big = { "SKILL.md": SKILL_MD, "data.bin": "x".repeat(DEFAULT_SKILL_UPLOAD_LIMITS.maxTotalBytes) };
    expect(errorsOf(validateSkillUpload(big))).toEqual([
      {
        path: "",
        message: `The skill is too big: ${1024 * 1024 + SKILL_MD.length} bytes (at most 1048576).`,
      },
    ]);
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.txt`, "x"]));
    expect(errorsOf(validateSkillUpload({ ...many, "SKILL.md": SKILL_MD }))).toEqual([
      { path: "", message: "Too many files: 201 (at most 200)." },
    ]);
  });
});

describe("validateSkillUpload: .tar.gz archives", () => {
  it("accepts ./ entries, strips one wrapper directory, keeps the executable bit and long names", () => {
    const long = `my-skill/${"d".repeat(60)}/${"f".repeat(60)}.sh`;
    const r = validateSkillUpload(
      makeTarGz([
        { path: "./", type: "5", mode: 0o755 },
        { path: "my-skill/", type: "5", mode: 0o755 },
        { path: "my-skill/SKILL.md", content: SKILL_MD },
        { path: "my-skill/scripts/run.sh", content: "#!/bin/bash\necho hi\n", mode: 0o755 },
        { path: long, content: "x" },
      ]),
    );
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (!r.ok) return;
    expect(r.skill.files.map((f) => [f.path, f.executable])).toEqual([
      ["SKILL.md", false],
      [long.slice("my-skill/".length), false],
      ["scripts/run.sh", true],
    ]);
  });

  it("rejects symbolic links, hard links and devices", () => {
    const errors = errorsOf(
      validateSkillUpload(
        makeTarGz([
          { path: "SKILL.md", content: SKILL_MD },
          { path: "passwd", type: "2", linkName: "/etc/passwd" },
          { path: "hard", type: "1", linkName: "SKILL.md" },
          { path: "tty", type: "3" },
        ]),
      ),
    );
    expect(errors).toEqual([
      { path: "passwd", message: "Links (symbolic or hard) are not allowed." },
      { path: "hard", message: "Links (symbolic or hard) are not allowed." },
      { path: "tty", message: "Only regular files are allowed." },
    ]);
  });

  it("rejects traversal inside the archive", () => {
    const errors = errorsOf(
      validateSkillUpload(
        makeTarGz([
          { path: "SKILL.md", content: SKILL_MD },
          { path: "../../etc/cron.d/x", content: "boom" },
          { path: "/abs", content: "boom" },
        ]),
      ),
    );
    expect(errors).toEqual([
      { path: "../../etc/cron.d/x", message: "Path traversal ('..') is not allowed." },
      { path: "/abs", message: "Absolute paths are not allowed." },
    ]);
  });

  it("stops inflating a gzip bomb and rejects non-gzip bodies and corrupt headers", () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024));
    expect(errorsOf(validateSkillUpload(bomb))[0]?.message).toMatch(
      /^The archive inflates to more than \d+ bytes\.$/,
    );
    expect(errorsOf(validateSkillUpload(Buffer.from("not gzip")))).toContainEqual({
      path: "",
      message: "The upload is not a valid gzip file.",
    });
    const tar = makeTarGz([{ path: "SKILL.md", content: SKILL_MD }]);
    const raw = gunzipSync(tar);
    raw[0] = 88;
    expect(errorsOf(validateSkillUpload(gzipSync(raw)))[0]?.message).toBe(
      "Bad tar header checksum at byte 0.",
    );
  });
});
