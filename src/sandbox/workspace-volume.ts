import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import {
  chmod,
  chown,
  link,
  mkdir,
  open,
  readdir,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
} from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import { loopBackingFile, readMounts } from "./mount-table.js";
import { SandboxUnavailableError } from "./sandbox.js";
import type { SandboxLogger } from "./sandbox-logger.js";

const execFileP = promisify(execFile);

/** Bytes and inodes of one session's /workspace. */
export interface WorkspaceQuota {
  diskBytes: number;
  inodes: number;
}

export const DEFAULT_WORKSPACE_QUOTA: WorkspaceQuota = { diskBytes: 1024 * 1024 * 1024, inodes: 100_000 };

// nosuid/nodev: the agent owns every file in there; noatime: reading does not write.
const MOUNT_OPTIONS = "loop,nosuid,nodev,noatime";
// Root runs these tools: a fixed environment, none inherited.
const TOOL_ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C" };
const SESSION_IMAGE = /^([A-Za-z0-9_-]{1,128})\.img$/;
const STALE_TMP_MS = 60_000;

/** Why volumes cannot be made here (null when they can); `env` is what the process has. */
export function quotaSupportProblem(
  quota: WorkspaceQuota,
  env: { uid: number | undefined; loopControl: boolean },
): string | null {
  if (!Number.isInteger(quota.diskBytes) || quota.diskBytes < 8 * 1024 * 1024)
    return "the workspace quota must be at least 8 MiB";
  // ext4 keeps at least 1 KiB of blocks per inode.
  if (!Number.isInteger(quota.inodes) || quota.inodes < 256 || quota.inodes * 1024 > quota.diskBytes)
    return `${quota.inodes} inodes do not fit a ${quota.diskBytes}-byte workspace (256 up to one per KiB)`;
  if (env.uid !== 0)
    return `workspace quotas loop-mount a filesystem per session and need root (uid is ${env.uid})`;
  if (!env.loopControl) return "workspace quotas need loop devices and /dev/loop-control is missing";
  return null;
}

interface VolumeOptions {
  dataDir: string;
  quota: WorkspaceQuota;
  /** Owner of each volume's root directory. */
  uid: number;
  /** The host directory a session's workspace is mounted at. */
  workspaceDir: (sessionId: string) => string;
  logger: SandboxLogger;
}

/**
 * The volumes, or null with a loud warning when quotas are "off". Throws, naming the fix, when
 * this process cannot make volumes: quotas are refused rather than silently not enforced.
 */
export function createWorkspaceVolumes(
  quota: WorkspaceQuota | "off" | undefined,
  opts: Omit<VolumeOptions, "quota">,
): WorkspaceVolumes | null {
  if (quota === "off") {
    opts.logger.warn(
      { dataDir: opts.dataDir },
      "SANDBOX_DISK_QUOTA=off: workspaces are plain host directories with no size or inode limit; one session can fill the host disk",
    );
    return null;
  }
  const q = quota ?? DEFAULT_WORKSPACE_QUOTA;
  const problem = quotaSupportProblem(q, {
    uid: process.getuid?.(),
    loopControl: existsSync("/dev/loop-control"),
  });
  if (problem) throw new Error(`${problem}; set SANDBOX_DISK_QUOTA=off to run without workspace quotas`);
  return new WorkspaceVolumes({ ...opts, quota: q });
}

/**
 * Each session's /workspace is an ext4 filesystem in a sparse image, `<dataDir>/volumes/<id>.img`,
 * loop-mounted at the workspace directory while its container runs: past the quota the agent gets
 * ENOSPC from the kernel, and the host disk never holds more than the image's size. Only the kernel
 * writes the image (the agent never sees the file), so the host never mounts agent-crafted bytes.
 */
export class WorkspaceVolumes {
  private readonly volumesDir: string;
  private resolvedDir?: Promise<string>;

  constructor(private readonly opts: VolumeOptions) {
    this.volumesDir = join(opts.dataDir, "volumes");
  }

  /** Mounts the session's volume (made on first use) at `dir`; a volume already there is reused. */
  /** `diskBytes`: this session's size when its volume is made now (the quota's otherwise). */
  async mount(sessionId: string, dir: string, diskBytes?: number): Promise<void> {
    try {
      const target = await realpath(dir);
      const image = await this.imageOf(sessionId);
      const mounted = await this.mountedImage(target);
      if (mounted === image) return;
      if (mounted !== null) throw new Error(`${target} already has another filesystem mounted (${mounted})`);
      // Fail closed: a container started without the volume finds a directory it cannot write.
      await chown(target, 0, 0);
      await chmod(target, 0o755);
      if ((await readdir(target)).length > 0)
        this.opts.logger.warn(
          { dir: target },
          "workspace directory is not empty: the volume hides its files",
        );
      const created = await this.createImage(image, diskBytes);
      await execFileP("mount", ["-t", "ext4", "-o", MOUNT_OPTIONS, image, target], { env: TOOL_ENV });
      if (created) await rmdir(join(target, "lost+found")).catch(() => {});
    } catch (err) {
      throw new SandboxUnavailableError(`workspace volume of session ${sessionId} did not mount`, {
        cause: err,
      });
    }
  }

  /**
   * A blank volume mounted at `dir`, owned by the agent (a warm sandbox's /workspace before a
   * session owns it); returns its image, `<volumes>/warm-*.spare` until `adopt` names it.
   */
  async mountBlank(dir: string): Promise<string> {
    const image = join(await this.resolvedVolumesDir(), `warm-${randomBytes(6).toString("hex")}.spare`);
    await this.createImage(image);
    try {
      await execFileP("mount", ["-t", "ext4", "-o", MOUNT_OPTIONS, image, dir], { env: TOOL_ENV });
      await rmdir(join(dir, "lost+found")).catch(() => {});
      // mkfs made the agent its root's owner; setgid and group-writable as prepared workspaces are.
      await chmod(dir, 0o2775);
    } catch (err) {
      await execFileP("umount", ["-l", dir], { env: TOOL_ENV }).catch(() => {});
      await rm(image, { force: true });
      throw err;
    }
    return image;
  }

  /**
   * Makes a mounted blank image the session's volume: a rename, so the loop device (which follows
   * the file) needs no remount. False (nothing changed) when the session already has an image.
   */
  async adopt(image: string, sessionId: string): Promise<boolean> {
    const own = await this.imageOf(sessionId);
    if (existsSync(own)) return false;
    await rename(image, own);
    return true;
  }

  /** Deletes blank images: `image`, or every one (a dead process's, before this one makes any). */
  async dropBlank(image?: string): Promise<void> {
    if (image !== undefined) return rm(image, { force: true });
    const dir = await this.resolvedVolumesDir();
    for (const name of await readdir(dir).catch(() => [] as string[]))
      if (name.endsWith(".spare")) await rm(join(dir, name), { force: true });
  }

  /** Unmounts the session's volume from `dir` (its data stays in the image); logs instead of throwing. */
  async unmount(dir: string): Promise<void> {
    await this.detach(dir, false).catch((err: unknown) =>
      this.opts.logger.warn({ err, dir }, "could not unmount a workspace volume; it is reused on next start"),
    );
  }

  /** Unmounts (lazily if busy) and deletes the session's volume: its workspace is gone. */
  async destroy(sessionId: string, dir: string): Promise<void> {
    await this.detach(dir, false).catch(() => this.detach(dir, true));
    await rm(await this.imageOf(sessionId), { force: true });
  }

  /**
   * Destroys every volume (image or mount) of a session not in `live`, and image files that a
   * crash left half-made. Returns how many sessions' volumes went.
   */
  async reap(live: Set<string>): Promise<number> {
    const found = new Set<string>();
    const names = await readdir(this.volumesDir).catch(() => [] as string[]);
    for (const name of names) {
      const sessionId = SESSION_IMAGE.exec(name)?.[1];
      if (sessionId !== undefined) found.add(sessionId);
      else if (name.endsWith(".tmp")) await this.removeStaleTmp(join(this.volumesDir, name));
    }
    const root = await realpath(dirname(this.opts.workspaceDir("x"))).catch(() => null);
    for (const m of root === null ? [] : await readMounts()) {
      if (dirname(m.mountPoint) === root) found.add(basename(m.mountPoint));
    }
    let reaped = 0;
    for (const sessionId of found) {
      if (live.has(sessionId) || !SESSION_IMAGE.test(`${sessionId}.img`)) continue;
      const dir = this.opts.workspaceDir(sessionId);
      await this.destroy(sessionId, dir);
      await rm(dir, { recursive: true, force: true });
      reaped++;
    }
    return reaped;
  }

  private async imageOf(sessionId: string): Promise<string> {
    return join(await this.resolvedVolumesDir(), `${sessionId}.img`);
  }

  /** The volumes directory as mountinfo and the loop devices name it (symlinks resolved). */
  private resolvedVolumesDir(): Promise<string> {
    this.resolvedDir ??= mkdir(this.volumesDir, { recursive: true, mode: 0o700 }).then(() =>
      realpath(this.volumesDir),
    );
    return this.resolvedDir;
  }

  /** The image file of the loop-mounted ext4 on top at `target`, null when nothing is; else a description. */
  private async mountedImage(target: string): Promise<string | null> {
    const top = (await readMounts()).filter((m) => m.mountPoint === target).at(-1);
    if (!top) return null;
    const backing = top.fsType === "ext4" ? await loopBackingFile(top.source) : null;
    return backing ?? `${top.fsType} from ${top.source}`;
  }

  /** Unmounts our volumes at `dir`, stacked ones too (two processes may have mounted at once). */
  private async detach(dir: string, lazy: boolean): Promise<void> {
    const target = await realpath(dir).catch(() => null);
    if (target === null) return;
    for (let i = 0; i < 4; i++) {
      const mounted = await this.mountedImage(target);
      if (mounted === null || !mounted.startsWith(`${await this.resolvedVolumesDir()}/`)) return;
      await execFileP("umount", lazy ? ["-l", target] : [target], { env: TOOL_ENV });
    }
  }

  /** Makes the sparse image with its filesystem; false when it exists (maybe made by another process). */
  private async createImage(image: string, ownBytes?: number): Promise<boolean> {
    if (existsSync(image)) return false;
    const tmp = `${image}.${randomBytes(4).toString("hex")}.tmp`;
    const diskBytes = ownBytes ?? this.opts.quota.diskBytes;
    // ext4 keeps at least 1 KiB per inode: a smaller volume gets fewer.
    const inodes = Math.min(this.opts.quota.inodes, Math.floor(diskBytes / 1024));
    const owner = `${this.opts.uid}:${this.opts.uid}`;
    try {
      await mkdir(dirname(image), { recursive: true, mode: 0o700 });
      const file = await open(tmp, "wx", 0o600);
      await file.truncate(diskBytes).finally(() => file.close());
      // The sparse file reads as zeros, so inode tables and journal need no zeroing (fast, no I/O).
      const extended = `lazy_itable_init=1,lazy_journal_init=1,root_owner=${owner}`;
      const args = ["-q", "-F", "-N", String(inodes), "-m", "0", "-L", "workspace", "-E", extended, tmp];
      await execFileP("mkfs.ext4", args, { env: TOOL_ENV, timeout: 60_000 });
      await link(tmp, image);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw err;
    } finally {
      await rm(tmp, { force: true });
    }
  }

  private async removeStaleTmp(path: string): Promise<void> {
    const info = await stat(path).catch(() => null);
    if (info && Date.now() - info.mtimeMs > STALE_TMP_MS) await rm(path, { force: true });
  }
}
