/**
 * The Skill record (docs/toolkit.md#skills) and where the `Skill` viewer reads a SKILL.md from. Loaders
 * produce records (a folder on the host, a tenant's store); a tenant's skills are mounted
 * read-only into every session container at `/skills/<name>`, so Bash can run a skill's scripts.
 */
import type { ToolRunContext } from "../run-context.js";

/** Where skills are mounted inside the sandbox. */
export const SKILLS_MOUNT_ROOT = "/skills";

/** Files larger than this are not read as a SKILL.md (uploads are capped well below it). */
const MAX_SKILL_MD_BYTES = 1024 * 1024;

/** One skill as the toolkit sees it. */
export interface Skill {
  name: string;
  description: string;
  /** The skill's directory (e.g. `/skills/pdf` in the sandbox, or a host path); shown in the prompt. */
  dir: string;
  /** Relative paths of the skill's files, when known (informational). */
  files?: readonly string[];
  /** The SKILL.md body (front matter removed, trimmed); when absent the viewer asks the source. */
  markdown?: string;
  /** Where the viewer reads this skill's SKILL.md (set by its loader); else the Toolkit's `skillSource`. */
  source?: SkillSource;
  /** Where the skill was found (e.g. its SKILL.md path), named in registration errors. */
  origin?: string;
}

/** Reads a skill's whole SKILL.md text (front matter included) when the viewer is called. */
export interface SkillSource {
  readSkillMd(skill: Skill, ctx: ToolRunContext): Promise<string>;
}

/** The container path of a skill named `name`. */
export function skillDir(name: string): string {
  return `${SKILLS_MOUNT_ROOT}/${name}`;
}

/**
 * A source that reads `<dir>/SKILL.md` through the session's sandbox (the read-only mount).
 * The service may instead read its own store, which avoids starting a container for the viewer.
 */
export function sandboxSkillSource(): SkillSource {
  return {
    async readSkillMd(skill, ctx) {
      const file = await ctx.sandbox.readFile(`${skill.dir}/SKILL.md`, { maxBytes: MAX_SKILL_MD_BYTES });
      return file.data.toString("utf8");
    },
  };
}
