/**
 * A host program loading a folder of skills with the local loader: every sub-directory of
 * `examples/skills` that holds a SKILL.md becomes a skill, listed in the system-prompt fragment
 * and read with the `Skill` viewer. Run: `npx tsx examples/skills-folder.ts`.
 */
import { fileURLToPath } from "node:url";
import { createHostContext, LocalSkillLoader, Toolkit } from "../src/toolkit/index.js";

const directory = fileURLToPath(new URL("./skills", import.meta.url));

// Loading reads the folder, so the toolkit is built with the async factory.
const toolkit = await Toolkit.create({
  skills: [new LocalSkillLoader({ directory, scanSubdir: true })],
});

console.log(`skills: ${[...toolkit.visibleSkills().keys()].join(", ")}`);
console.log(
  `tools: ${toolkit
    .getToolSchemas()
    .map((schema) => schema.function.name)
    .join(", ")}`,
);
// The fragment goes into the agent's system prompt; each skill's dir is its absolute host path.
console.log(toolkit.getSkillInstructions());

// The model chose a skill and asked the viewer for it.
const response = await toolkit.callTool("Skill", { skill: "release-notes" }, createHostContext());
const text = response.content.map((block) => (block.type === "text" ? block.text : "")).join("");
console.log(`--- Skill(release-notes): ${response.state}\n${text}`);
