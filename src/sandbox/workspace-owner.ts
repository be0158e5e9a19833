import { constants } from "node:fs";
import { type FileHandle, lchown, lstat, open, readdir } from "node:fs/promises";
import { UID_SLOT_WIDTH } from "./uid-slots.js";

/** A directory opened as itself: never through a symlink in its last component. */
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Nested directories the walk holds open at once (one descriptor each); deeper trees are refused. */
export const REOWN_MAX_DEPTH = 1024;

/**
 * Moves a workspace's files from one uid range to another (a session's slot changed: its
 * workspace came from another host, or its old slot was taken meanwhile). Each id in a range the
 * sandboxes use keeps its place in the range (the agent stays the agent, a file left by an MCP
 * server stays that server's slot uid); ids outside them (root's lost+found) stay. Runs on the
 * host, as root, before the container starts.
 *
 * The walk never resolves a path by name from the workspace's root: each directory is opened
 * (O_NOFOLLOW) through its already open parent, `/proc/self/fd/<parent>/<name>`, and an entry is
 * changed through that pinned parent with its last component not followed. A process of the
 * tenant still running on the volume (one that should not be, attack31) that swaps a directory
 * for a symlink mid-walk thus changes nothing outside the workspace; a path-based walk chowned the
 * symlink's target's files.
 *
 * `fromBase`: the base of the sandbox range an id is in (any slot's, or the SANDBOX_UID_BASE
 * range of workspaces made before slots), undefined for other ids. Other filesystems are not
 * entered. Returns how many entries changed owner.
 */
export async function reownWorkspace(
  dir: string,
  fromBase: (id: number) => number | undefined,
  toBase: number,
): Promise<number> {
  const map = (id: number): number => {
    const base = fromBase(id);
    return base === undefined ? id : toBase + (id - base);
  };
  /** The new owner, or undefined when it stays. */
  const owner = (st: { uid: number; gid: number }) => {
    const [uid, gid] = [map(st.uid), map(st.gid)];
    return uid === st.uid && gid === st.gid ? undefined : { uid, gid };
  };
  let changed = 0;
  const walk = async (parent: FileHandle, dev: number, depth: number): Promise<void> => {
    const at = `/proc/self/fd/${parent.fd}`;
    for (const name of await readdir(at)) {
      const path = `${at}/${name}`;
      const st = await lstat(path).catch(gone);
      if (!st || st.dev !== dev) continue;
      if (!st.isDirectory()) {
        // lchown clears a regular file's setuid/setgid bits: none is wanted there (nosuid anyway).
        const to = owner(st);
        if (to && (await lchown(path, to.uid, to.gid).then(() => true, gone))) changed++;
        continue;
      }
      if (depth >= REOWN_MAX_DEPTH)
        throw new Error(`the workspace nests directories deeper than ${REOWN_MAX_DEPTH}: not re-owned`);
      const child = await open(path, DIR_FLAGS).catch(gone);
      if (!child) continue;
      try {
        // What was opened, whatever the name says by now.
        const cst = await child.stat();
        if (cst.dev !== dev) continue;
        const to = owner(cst);
        if (to) {
          await child.chown(to.uid, to.gid);
          changed++;
        }
        await walk(child, dev, depth + 1);
      } finally {
        await child.close();
      }
    }
  };
  const top = await open(dir, DIR_FLAGS);
  try {
    const root = await top.stat();
    await walk(top, root.dev, 0);
    // The root last: its owner is what says the walk is done (one cut short runs again next start).
    const to = owner(root);
    if (to) {
      await top.chown(to.uid, to.gid);
      changed++;
    }
  } finally {
    await top.close();
  }
  return changed;
}

/** An entry that went or changed kind while the walk reached it is skipped (undefined); others throw. */
function gone(err: unknown): undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === "ENOENT" || code === "ELOOP" || code === "ENOTDIR") return undefined;
  throw err;
}

/** The base of the width-sized range holding `id`, among `bases`; undefined when none holds it. */
export function rangeBaseAmong(bases: number[], id: number): number | undefined {
  return bases.find((b) => id >= b && id < b + UID_SLOT_WIDTH);
}
