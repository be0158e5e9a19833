/**
 * A worker host's cache of its tenants' skills, materialized from the database (skill_archives)
 * just before a session's container mounts them: any worker can run any tenant's session, and
 * the API process that took the upload never writes a file.
 *
 * Layout under `<root>/<tenant>/` (the directory mounted read-only at `/skills`):
 * - `.v/<sha256>/`: a skill's files, content-addressed, written to `<root>/.tmp` and renamed into
 *   place whole, so no reader ever sees a half-written skill;
 * - `<name>`: a relative symlink to `.v/<sha256>`, replaced by renaming a new link over it, so
 *   `/skills/<name>` is always one complete version, also inside running containers (the link
 *   resolves within the mount).
 * The tenant's directory is mounted whole, so skills added later appear without recreating
 * containers. A process syncs a tenant at most once per TTL_MS (one small query); writers in this
 * process call `invalidate`, other processes' changes show within TTL_MS.
 */
import { randomBytes } from "node:crypto";
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import { type Db, tablesOf } from "../../db/db.js";
import { SKILL_NAME_PATTERN } from "../../toolkit/skills/skill-meta.js";
import { sha256Of, unpackSkill } from "./skill-archive.js";

const TENANT_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** Skill files are read by the sandbox user (uid 1000), never written by it. */
const DIR_MODE = 0o755;
const VERSIONS = ".v";
const TTL_MS = 1000;
/** A version no link names is removed after this long (a container may still be reading it). */
const STALE_VERSION_MS = 10 * 60_000;

interface SyncState {
  at: number;
  pending?: Promise<void>;
}

export class SkillFiles {
  readonly root: string;
  private readonly synced = new Map<string, SyncState>();

  constructor(
    root: string,
    private readonly db: Db,
  ) {
    this.root = resolve(root);
  }

  /** The tenant's skills directory on this host (mounted at `/skills`), brought up to date. */
  async tenantDir(tenantId: string): Promise<string> {
    const dir = join(this.root, checkTenant(tenantId));
    const state = this.synced.get(tenantId);
    if (state?.pending) await state.pending;
    else if (!state || Date.now() - state.at >= TTL_MS) await this.syncOnce(tenantId, dir);
    return dir;
  }

  /** The next `tenantDir` reads the database again (after this process changed the skills). */
  invalidate(tenantId: string): void {
    const state = this.synced.get(tenantId);
    if (state) state.at = 0;
  }

  private async syncOnce(tenantId: string, dir: string): Promise<void> {
    const state: SyncState = { at: Date.now() };
    state.pending = this.sync(tenantId, dir).finally(() => {
      state.pending = undefined;
    });
    this.synced.set(tenantId, state);
    try {
      await state.pending;
    } catch (err) {
      this.synced.delete(tenantId);
      throw err;
    }
  }

  private async sync(tenantId: string, dir: string): Promise<void> {
    const { skillArchives } = tablesOf(this.db);
    const wanted = await this.db
      .select({ name: skillArchives.name, sha256: skillArchives.sha256 })
      .from(skillArchives)
      .where(eq(skillArchives.tenantId, tenantId));
    await mkdir(join(dir, VERSIONS), { recursive: true, mode: DIR_MODE });
    const links = await this.links(dir);
    const stale = wanted.filter((w) => links.get(w.name) !== versionPath(w.sha256)).map((w) => w.name);
    if (stale.length > 0) {
      const rows = await this.db
        .select({ name: skillArchives.name, sha256: skillArchives.sha256, archive: skillArchives.archive })
        .from(skillArchives)
        .where(and(eq(skillArchives.tenantId, tenantId), inArray(skillArchives.name, stale)));
      for (const row of rows) {
        await this.writeVersion(dir, row.sha256, Buffer.from(row.archive));
        await this.link(dir, checkName(row.name), row.sha256);
      }
    }
    const names = new Set(wanted.map((w) => w.name));
    for (const name of links.keys()) if (!names.has(name)) await rm(join(dir, name), { force: true });
    await this.dropStaleVersions(dir);
  }

  /** The skill links in the tenant's directory: name → target. */
  private async links(dir: string): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isSymbolicLink() && SKILL_NAME_PATTERN.test(entry.name))
        out.set(entry.name, await readlink(join(dir, entry.name)));
    }
    return out;
  }

  /** Unpacks the archive into `.v/<sha>` unless it is there (another sync may race: both are whole). */
  private async writeVersion(dir: string, sha: string, archive: Buffer): Promise<void> {
    const final = join(dir, versionPath(checkSha(sha)));
    if (await exists(final)) return;
    if (sha256Of(archive) !== sha)
      throw new Error(`the archive of skill version ${sha} does not match its hash`);
    const staging = await this.scratch();
    try {
      for (const f of unpackSkill(archive)) {
        const path = join(staging, f.path);
        await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
        await writeFile(path, f.content);
        // Explicit modes: the service's umask must not hide files from the sandbox user.
        await chmod(path, f.executable ? 0o755 : 0o644);
      }
      await chmod(staging, DIR_MODE);
      await rename(staging, final).catch(async (err: NodeJS.ErrnoException) => {
        // Another process renamed the same version first.
        if (err.code !== "ENOTEMPTY" && err.code !== "EEXIST") throw err;
        await rm(staging, { recursive: true, force: true });
      });
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      throw err;
    }
  }

  /** Points `<name>` at the version by renaming a fresh link over it (atomic for readers). */
  private async link(dir: string, name: string, sha: string): Promise<void> {
    const tmp = join(dir, `.link-${randomBytes(6).toString("hex")}`);
    await symlink(versionPath(sha), tmp);
    try {
      // A directory at the name (not a link) cannot be replaced by rename; it is not ours to keep.
      const old = await lstat(join(dir, name)).catch(() => undefined);
      if (old?.isDirectory()) await rm(join(dir, name), { recursive: true, force: true });
      await rename(tmp, join(dir, name));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  private async dropStaleVersions(dir: string): Promise<void> {
    const used = new Set((await this.links(dir)).values());
    const now = Date.now();
    for (const v of await readdir(join(dir, VERSIONS))) {
      const path = join(dir, VERSIONS, v);
      if (used.has(versionPath(v))) continue;
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > STALE_VERSION_MS) await rm(path, { recursive: true, force: true });
    }
  }

  private async scratch(): Promise<string> {
    const dir = join(this.root, ".tmp", randomBytes(8).toString("hex"));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
  }
}

const versionPath = (sha: string) => `${VERSIONS}/${sha}`;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

// These become path components: anything that is not a plain name is a programming error.
function checkTenant(tenantId: string): string {
  if (!TENANT_ID.test(tenantId)) throw new Error(`invalid tenant id ${JSON.stringify(tenantId)}`);
  return tenantId;
}

function checkName(name: string): string {
  if (!SKILL_NAME_PATTERN.test(name)) throw new Error(`invalid skill name ${JSON.stringify(name)}`);
  return name;
}

function checkSha(sha: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha)) throw new Error(`invalid skill version ${JSON.stringify(sha)}`);
  return sha;
}
