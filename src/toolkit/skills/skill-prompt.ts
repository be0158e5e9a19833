/**
 * The skills fragment of the system prompt (docs/toolkit.md#the-viewer-and-the-prompt-fragment), exact text,
 * no trailing newline.
 */
import type { Skill } from "./skill.js";

/** Renders the fragment for the visible skills; replaceable through the Toolkit's options. */
export type SkillInstructionTemplate = (skills: readonly Skill[]) => string;

const HEAD = `<agent-skills>
Skills are a collection of instructions, scripts, and resources to extend your capabilities.

**IMPORTANT**: Skills are NOT tools, and you cannot call a skill directly. To use a skill, you MUST use the \`Skill\` tool to read the skill's full instructions, and then follow those instructions to use the tools and resources provided by the skill.

# Available Skills:
`;

/** The reference's template: name, description and dir of each skill, nothing between them. */
export const defaultSkillInstructions: SkillInstructionTemplate = (skills) => {
  const items = skills.map(
    (s) =>
      `<skill>\n<name>${s.name}</name>\n<description>${s.description}</description>\n<dir>${s.dir}</dir>\n</skill>`,
  );
  return `${HEAD}${items.join("")}\n</agent-skills>`;
};
