/**
 * Turns a list of skill sources into `Skill` records (docs/toolkit.md#skill-sources-and-toolkitcreate): a
 * directory path becomes a LocalSkillLoader without sub-directory scanning, a loader is awaited, a record is
 * kept. Sources load concurrently; the records keep the sources' order.
 */
import { ToolkitConfigError } from "../toolkit-errors.js";
import { LocalSkillLoader } from "./local-skill-loader.js";
import type { Skill } from "./skill.js";
import { SkillLoaderBase, type SkillOrLoader, SkillSourceError } from "./skill-loader.js";

/** The records of every source, in order; throws SkillSourceError or ToolkitConfigError. */
export async function loadSkillSources(sources: readonly SkillOrLoader[]): Promise<Skill[]> {
  const loaded = await Promise.all(sources.map((source) => loadOne(source)));
  return loaded.flat();
}

/** True for a `Skill` record: name, description and dir are strings. */
export function isSkill(value: unknown): value is Skill {
  if (typeof value !== "object" || value === null || value instanceof SkillLoaderBase) return false;
  const v = value as Record<string, unknown>;
  return typeof v.name === "string" && typeof v.description === "string" && typeof v.dir === "string";
}

/** Refuses anything but records: sources that need loading go through `Toolkit.create`. */
export function assertSkillRecords(skills: readonly unknown[], group: string): void {
  for (const skill of skills) {
    if (isSkill(skill)) continue;
    if (typeof skill === "string" || skill instanceof SkillLoaderBase) {
      throw new ToolkitConfigError(
        `The skill source ${describe(skill)} in group '${group}' must be loaded first: build the toolkit with 'await Toolkit.create(...)'.`,
      );
    }
    throw new ToolkitConfigError(`Invalid skill or loader in group '${group}': ${describe(skill)}.`);
  }
}

async function loadOne(source: SkillOrLoader): Promise<Skill[]> {
  if (typeof source === "string") return new LocalSkillLoader({ directory: source }).load();
  if (!(source instanceof SkillLoaderBase)) {
    if (!isSkill(source)) throw new ToolkitConfigError(`Invalid skill or loader: ${describe(source)}.`);
    return [source];
  }
  let skills: Skill[];
  try {
    skills = await source.load();
  } catch (err) {
    if (err instanceof SkillSourceError) throw err;
    throw new SkillSourceError(source.label, err instanceof Error ? err.message : String(err));
  }
  const bad = skills.find((s) => !isSkill(s));
  if (bad !== undefined) {
    throw new SkillSourceError(
      source.label,
      `load() returned something that is not a skill: ${describe(bad)}.`,
    );
  }
  // Registration errors name where a skill came from: its file if the loader says, else the loader.
  return skills.map((s) => (s.origin ? s : { ...s, origin: source.label }));
}

function describe(value: unknown): string {
  if (value instanceof SkillLoaderBase) return value.label;
  if (typeof value === "string") return `'${value}'`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
