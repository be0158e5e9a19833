/**
 * Skills on disk: `<root>/<tenant>/<name>/...`, written to a staging directory and renamed into
 * place. The tenant's directory is what session containers mount read-only at `/skills`, so a
 * skill added later appears in running containers without recreating them.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { SKILL_NAME_PATTERN } from "../../toolkit/skills/skill-meta.js";
import type { SkillFile } from "../../toolkit/skills/skill-upload.js";

const TENANT_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** Skill files are read by the sandbox user (uid 1000), never written by it. */
const DIR_MODE = 0o755;

export class SkillFiles {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The tenant's skills directory on the host (mounted at `/skills`); created if missing. */
  async tenantDir(tenantId: string): Promise<string> {
    const dir = join(this.root, checkTenant(tenantId));
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    return dir;
  }

  /** Replaces the skill's directory with these files, atomically for readers of the final path. */
  async write(tenantId: string, name: string, files: readonly SkillFile[]): Promise<void> {
    const final = join(await this.tenantDir(tenantId), checkName(name));
    const staging = await this.scratch();
    try {
      for (const f of files) {
        const path = join(staging, f.path);
        await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
        await writeFile(path, f.content);
        // Explicit modes: the service's umask must not hide files from the sandbox user.
        await chmod(path, f.executable ? 0o755 : 0o644);
      }
      await chmod(staging, DIR_MODE);
      const old = join(this.root, ".staging", `old-${randomBytes(6).toString("hex")}`);
      await rename(final, old).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "ENOENT") throw err;
      });
      await rename(staging, final);
      await rm(old, { recursive: true, force: true });
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      throw err;
    }
  }

  async remove(tenantId: string, name: string): Promise<void> {
    await rm(join(this.root, checkTenant(tenantId), checkName(name)), { recursive: true, force: true });
  }

  /** The whole SKILL.md (front matter included), as the `Skill` viewer's source expects. */
  async readSkillMd(tenantId: string, name: string): Promise<string> {
    return readFile(join(this.root, checkTenant(tenantId), checkName(name), "SKILL.md"), "utf8");
  }

  private async scratch(): Promise<string> {
    const dir = join(this.root, ".staging", randomBytes(8).toString("hex"));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
  }
}

// Both become path components: anything that is not a plain name is a programming error.
function checkTenant(tenantId: string): string {
  if (!TENANT_ID.test(tenantId)) throw new Error(`invalid tenant id ${JSON.stringify(tenantId)}`);
  return tenantId;
}

function checkName(name: string): string {
  if (!SKILL_NAME_PATTERN.test(name)) throw new Error(`invalid skill name ${JSON.stringify(name)}`);
  return name;
}
