/**
 * The checks every SKILL.md passes, whatever its source (an upload, a folder on the host): front
 * matter present, a `name` that can also be a directory name, a non-empty, bounded `description`.
 */
import { MAX_FRONT_MATTER_LENGTH, parseSkillMd } from "./skill-md.js";

/** The pattern a skill name must match (it is also the skill's directory name in the store). */
export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** The longest description accepted (uploads may lower it through their limits). */
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;

/** What a valid SKILL.md declares: its name, description and trimmed body. */
export interface SkillMeta {
  name: string;
  description: string;
  markdown: string;
}

/** The declared skill, or every problem with the text (at least one). */
export type SkillMetaCheck = { ok: true; meta: SkillMeta } | { ok: false; problems: string[] };

/** Checks one SKILL.md text (already decoded). */
export function checkSkillMeta(text: string, maxDescription = MAX_SKILL_DESCRIPTION_LENGTH): SkillMetaCheck {
  const parsed = parseSkillMd(text);
  if (!parsed.hasFrontMatter) {
    const problem =
      "SKILL.md must start with YAML front matter (between '---' lines) with name and description.";
    return { ok: false, problems: [problem] };
  }
  if (parsed.tooLong !== undefined) {
    const problem = `The front matter is ${parsed.tooLong} characters long (at most ${MAX_FRONT_MATTER_LENGTH}): keep it to name, description and a few short fields.`;
    return { ok: false, problems: [problem] };
  }
  if (parsed.error) return { ok: false, problems: [`The front matter is not valid YAML: ${parsed.error}`] };
  const problems: string[] = [];
  const name = parsed.fields.name?.trim() ?? "";
  const description = parsed.fields.description?.trim() ?? "";
  if (!name) problems.push("The front matter has no 'name'.");
  else if (!SKILL_NAME_PATTERN.test(name))
    problems.push(`The name '${name}' must match ${SKILL_NAME_PATTERN.source}.`);
  if (!description) problems.push("The front matter has no 'description'.");
  else if (description.length > maxDescription) {
    problems.push(`The description is longer than ${maxDescription} characters.`);
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, meta: { name, description, markdown: parsed.body } };
}
