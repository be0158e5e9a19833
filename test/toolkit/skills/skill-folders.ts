/** Real skill folders on disk for loader tests (a temporary directory per call, removed by `cleanup`). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A SKILL.md with front matter and a body. */
export function skillMd(name: string, description: string, body = `# ${name}`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;
}

/** The temporary directories made so far; `cleanup` removes them all. */
const made: string[] = [];

/** Writes `files` (relative path → text) under a new temporary directory and returns its path. */
export function skillFolder(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "toolshed-skills-"));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** Removes every folder `skillFolder` made (call from `afterAll`). */
export function cleanup(): void {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
}

/** The text of a tool response, its blocks joined. */
export function textOf(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}
