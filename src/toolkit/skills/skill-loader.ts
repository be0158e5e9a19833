/**
 * Skill loaders (docs/toolkit.md#skill-sources-and-toolkitcreate): something that finds skills (a folder on
 * the host, a tenant's store) behind an async `load()`. `Toolkit.create` awaits every loader before the
 * synchronous registration checks run.
 */
import { ToolkitConfigError } from "../toolkit-errors.js";
import type { Skill } from "./skill.js";

/** The base of every loader; `label` names the source in errors. */
export abstract class SkillLoaderBase {
  /** Names this source in errors, e.g. `LocalSkillLoader(/srv/skills)`. */
  abstract readonly label: string;

  /** The source's skills in a stable order; throws SkillSourceError when the source is broken. */
  abstract load(): Promise<Skill[]>;
}

/** One entry of a Toolkit's or group's `skills`: a directory path, a `Skill` record or a loader. */
export type SkillOrLoader = string | Skill | SkillLoaderBase;

/** A source that cannot be loaded: `source` is its label, `file` the path at fault (if one is). */
export class SkillSourceError extends ToolkitConfigError {
  constructor(
    readonly source: string,
    problem: string,
    readonly file?: string,
  ) {
    super(`Skill source ${source}: ${problem}`);
    this.name = "SkillSourceError";
  }
}
