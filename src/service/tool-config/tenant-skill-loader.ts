/**
 * A tenant's stored skills as one more skill loader, so the service takes the library's path
 * from source to viewer: `load()` gives the rows as records (dir = `/skills/<name>`, the
 * read-only mount in every session container) and the viewer reads SKILL.md from the skill's
 * archive in the database through this loader, so viewing a skill never starts a container.
 */
import { and, eq } from "drizzle-orm";
import { type Db, first, tablesOf } from "../../db/db.js";
import { type Skill, type SkillSource, skillDir } from "../../toolkit/skills/skill.js";
import { SkillLoaderBase } from "../../toolkit/skills/skill-loader.js";
import { unpackSkill } from "./skill-archive.js";

/** What the loader reads: the skill rows and their archives. */
export interface SkillStore {
  db: Db;
}

/** The tenant's skills by name; the viewer reads their SKILL.md from the stored archive. */
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
    return (await getSkillRecords(this.store.db, this.tenantId)).map((s) => ({ ...s, source: this }));
  }

  async readSkillMd(skill: Skill): Promise<string> {
    const { db } = this.store;
    const { skillArchives: a } = tablesOf(db);
    const row = await first(
      db
        .select({ archive: a.archive })
        .from(a)
        .where(and(eq(a.tenantId, this.tenantId), eq(a.name, skill.name)))
        .limit(1),
    );
    const md = row && unpackSkill(Buffer.from(row.archive)).find((f) => f.path === "SKILL.md");
    if (!md) throw new Error(`The skill '${skill.name}' could not be read; it may have just been removed.`);
    return md.content.toString("utf8");
  }
}

/**
 * The tenant's skills as records without a source, by name (enough to check names). Only skills
 * with stored files count: rows from before files moved into the database have none.
 */
export async function getSkillRecords(db: Db, tenantId: string): Promise<Skill[]> {
  const { skills, skillArchives } = tablesOf(db);
  const rows = await db
    .select({ name: skills.name, description: skills.description })
    .from(skills)
    .innerJoin(
      skillArchives,
      and(eq(skillArchives.tenantId, skills.tenantId), eq(skillArchives.name, skills.name)),
    )
    .where(eq(skills.tenantId, tenantId))
    .orderBy(skills.name);
  return rows.map((s) => ({ name: s.name, description: s.description, dir: skillDir(s.name) }));
}
