/**
 * A tenant's skills: upload (a JSON file map or a `.tar.gz`, validated by `validateSkillUpload`),
 * list and delete. The row and the files (one archive, skill-archive.ts) land in one transaction
 * in the database; workers unpack them where sessions run (skill-files.ts), the API writes no file.
 * Uploading a skill whose name exists replaces it.
 */

import { and, count, eq, exists } from "drizzle-orm";
import type { SkillView } from "../../contracts/tool-config.js";
import { atomically, type Db, first, tablesOf } from "../../db/db.js";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors.js";
import { skillDir } from "../../toolkit/skills/skill.js";
import { validateSkillUpload } from "../../toolkit/skills/skill-upload.js";
import { ToolkitConfigError } from "../../toolkit/toolkit-errors.js";
import { nowIso } from "../clock.js";
import type { ToolRegistry } from "../ports.js";
import {
  buildTenantToolkit,
  dropStaleMembers,
  getToolGroups,
  loadTenantToolConfig,
} from "../sessions/build-toolkit.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { loadTenant } from "../tenancy/tenants.js";
import { packSkill } from "./skill-archive.js";
import type { SkillFiles } from "./skill-files.js";
import { invalidateTenantConfig } from "./tenant-config-cache.js";

type Deps = { db: Db; tools: ToolRegistry; skillFiles: SkillFiles };

/**
 * Skills one tenant keeps (a tool group lists at most 200): each is up to 1 MiB in the database
 * and on the disk of every worker that runs the tenant's sessions, outside workspace quotas.
 */
export const MAX_SKILLS_PER_TENANT = 200;

// Size problems are 413s; everything else about an upload is a 400 listing every problem.
const TOO_BIG = /^(The skill is too big|The archive inflates to more than)/;

export async function uploadSkill(
  deps: Deps,
  p: Principal,
  tenantId: string,
  upload: Record<string, unknown> | Buffer,
): Promise<{ name: string; description: string }> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const checked = validateSkillUpload(upload);
  if (!checked.ok) {
    const tooBig = checked.errors.find((e) => e.path === "" && TOO_BIG.test(e.message));
    if (tooBig) throw new AppError("PAYLOAD_TOO_LARGE", tooBig.message, checked.errors);
    throw new ValidationError("invalid skill", checked.errors);
  }
  const { name, description, markdown, files } = checked.skill;
  await checkNameClash(deps, tenantId, name, description);
  const isNew = await checkSkillCount(deps.db, tenantId, name);
  const { archive, sha256 } = packSkill(files);
  const row = {
    tenantId,
    name,
    description,
    markdown,
    fileCount: files.length,
    sizeBytes: files.reduce((n, f) => n + f.content.length, 0),
    createdAt: nowIso(),
  };
  const { tenantId: _t, name: _n, ...set } = row;
  await atomically(deps.db, (tx) => {
    const { skills, skillArchives } = tablesOf(tx);
    return [
      tx
        .insert(skills)
        .values(row)
        .onConflictDoUpdate({ target: [skills.tenantId, skills.name], set }),
      tx
        .insert(skillArchives)
        .values({ tenantId, name, sha256, archive })
        .onConflictDoUpdate({
          target: [skillArchives.tenantId, skillArchives.name],
          set: { sha256, archive },
        }),
    ];
  });
  try {
    if (isNew) await keepWithinBound(deps.db, row);
  } finally {
    invalidateSkills(deps, tenantId);
  }
  return { name, description };
}

export async function listSkills(deps: { db: Db }, p: Principal, tenantId: string): Promise<SkillView[]> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const { skills } = tablesOf(deps.db);
  return deps.db
    .select({
      name: skills.name,
      description: skills.description,
      fileCount: skills.fileCount,
      sizeBytes: skills.sizeBytes,
      createdAt: skills.createdAt,
    })
    .from(skills)
    .where(eq(skills.tenantId, tenantId))
    .orderBy(skills.name);
}

/** Removes the row and its files; a skill a tool group names is a 409 (edit the group first). */
export async function deleteSkill(deps: Deps, p: Principal, tenantId: string, name: string): Promise<void> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const { skills } = tablesOf(deps.db);
  const where = and(eq(skills.tenantId, tenantId), eq(skills.name, name));
  if (!(await first(deps.db.select({ name: skills.name }).from(skills).where(where).limit(1))))
    throw new NotFoundError("skill", name);
  const group = (await getToolGroups(deps.db, tenantId)).find((g) => g.skills?.includes(name));
  if (group)
    throw new ConflictError(
      `the skill ${name} is used by the tool group ${group.name}; remove it there first`,
    );
  await atomically(deps.db, (tx) => {
    const t = tablesOf(tx);
    return [
      tx
        .delete(t.skillArchives)
        .where(and(eq(t.skillArchives.tenantId, tenantId), eq(t.skillArchives.name, name))),
      tx.delete(t.skills).where(and(eq(t.skills.tenantId, tenantId), eq(t.skills.name, name))),
    ];
  });
  invalidateSkills(deps, tenantId);
}

/** This process's caches see the change at once (other processes' within their TTL). */
function invalidateSkills(deps: Deps, tenantId: string): void {
  invalidateTenantConfig(deps.db, tenantId);
  deps.skillFiles.invalidate(tenantId);
}

/**
 * A new name past MAX_SKILLS_PER_TENANT is a 409 (replacing a skill is always allowed); true
 * when the name is new.
 */
async function checkSkillCount(db: Db, tenantId: string, name: string): Promise<boolean> {
  const { skills } = tablesOf(db);
  const names = await db.select({ name: skills.name }).from(skills).where(eq(skills.tenantId, tenantId));
  const isNew = !names.some((r) => r.name === name);
  if (names.length >= MAX_SKILLS_PER_TENANT && isNew) throw tooManySkills(names.length);
  return isNew;
}

const tooManySkills = (n: number) =>
  new ConflictError(
    `the tenant has ${n} skills, the most it may keep (${MAX_SKILLS_PER_TENANT}); delete one first`,
  );

/**
 * A new skill that finds the tenant over the bound once stored takes itself back, as MCP servers
 * do: two uploads racing at the bound may both be refused, never both kept (both were, so 201).
 */
async function keepWithinBound(db: Db, row: { tenantId: string; name: string; createdAt: string }) {
  const { skills } = tablesOf(db);
  const total =
    (await first(db.select({ n: count() }).from(skills).where(eq(skills.tenantId, row.tenantId))))?.n ?? 0;
  if (total <= MAX_SKILLS_PER_TENANT) return;
  await atomically(db, (tx) => {
    const t = tablesOf(tx);
    // Ours only: an upload of the same name since then replaced the row (and its createdAt).
    const ours = and(
      eq(t.skills.tenantId, row.tenantId),
      eq(t.skills.name, row.name),
      eq(t.skills.createdAt, row.createdAt),
    );
    return [
      tx
        .delete(t.skillArchives)
        .where(
          and(
            eq(t.skillArchives.tenantId, row.tenantId),
            eq(t.skillArchives.name, row.name),
            exists(tx.select({ name: t.skills.name }).from(t.skills).where(ours)),
          ),
        ),
      tx.delete(t.skills).where(ours),
    ];
  });
  throw tooManySkills(total - 1);
}

/** A skill shares the namespace of the tenant's tools: a clash is a 400 on SKILL.md. */
async function checkNameClash(deps: Deps, tenantId: string, name: string, description: string) {
  const builtins = deps.tools.list();
  const { config } = dropStaleMembers(
    builtins.map((t) => t.name),
    await loadTenantToolConfig(deps, tenantId),
  );
  const others = config.skills.filter((s) => s.name !== name);
  try {
    // Reading the listing also checks every exposed schema, as a session would.
    void buildTenantToolkit(builtins, {
      ...config,
      skills: [...others, { name, description, dir: skillDir(name) }],
    }).listing;
  } catch (err) {
    if (!(err instanceof ToolkitConfigError)) throw err;
    throw new ValidationError("invalid skill", [{ path: "SKILL.md", message: err.message }]);
  }
}
