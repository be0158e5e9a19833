/**
 * A tenant's stored skills as one more skill loader, so the service takes the library's path
 * from source to viewer: `load()` gives the rows as records (dir = `/skills/<name>`, the
 * read-only mount in every session container) and the viewer reads SKILL.md from the host's
 * store through this loader, so viewing a skill never starts a container.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/open.js";
import { skills } from "../../db/schema.js";
import { type Skill, type SkillSource, skillDir } from "../../toolkit/skills/skill.js";
import { SkillLoaderBase } from "../../toolkit/skills/skill-loader.js";
import type { SkillFiles } from "./skill-files.js";

/** What the loader reads: the rows and the files behind them. */
export interface SkillStore {
  db: Db;
  skillFiles: SkillFiles;
}

/** The tenant's skills by name; the viewer reads their SKILL.md from `skillFiles`. */
export class TenantSkillLoader extends SkillLoaderBase implements SkillSource {
  readonly label: string;

  constructor(
    private readonly store: SkillStore,
    private readonly tenantId: string,
  ) {
    super();
    this.label = `uploaded skills of tenant ${tenantId}`;
  }

  async load(): Promise<Skill[]> {
    return getSkillRecords(this.store.db, this.tenantId).map((s) => ({ ...s, source: this }));
  }

  async readSkillMd(skill: Skill): Promise<string> {
    try {
      return await this.store.skillFiles.readSkillMd(this.tenantId, skill.name);
    } catch {
      throw new Error(`The skill '${skill.name}' could not be read; it may have just been removed.`);
    }
  }
}

/** The tenant's skill rows as records without a source, by name (enough to check names). */
export function getSkillRecords(db: Db, tenantId: string): Skill[] {
  return db
    .select({ name: skills.name, description: skills.description })
    .from(skills)
    .where(eq(skills.tenantId, tenantId))
    .orderBy(skills.name)
    .all()
    .map((s) => ({ name: s.name, description: s.description, dir: skillDir(s.name) }));
}
