import { lchown, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { UID_SLOT_WIDTH } from "./uid-slots.js";

/**
 * Moves a workspace's files from one uid range to another (a session's slot changed: its
 * workspace came from another host, or its old slot was taken meanwhile). Each id in a range the
 * sandboxes use keeps its place in the range (the agent stays the agent, a file left by an MCP
 * server stays that server's slot uid); ids outside them (root's lost+found) stay. Runs on the
 * host, as root, before the container starts, so no sandbox process races it.
 *
 * `fromBase`: the base of the sandbox range an id is in (any slot's, or the SANDBOX_UID_BASE
 * range of workspaces made before slots), undefined for other ids. Links are not followed; other
 * filesystems are not entered. Returns how many entries changed owner.
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
  const root = await lstat(dir);
  let changed = 0;
  const own = async (path: string, st: { uid: number; gid: number }) => {
    const uid = map(st.uid);
    const gid = map(st.gid);
    if (uid === st.uid && gid === st.gid) return;
    // lchown clears a regular file's setuid/setgid bits: none is wanted there (nosuid anyway).
    await lchown(path, uid, gid);
    changed++;
  };
  const stack = (await readdir(dir)).map((name) => join(dir, name));
  while (stack.length > 0) {
    const path = stack.pop()!;
    const st = await lstat(path);
    if (st.dev !== root.dev) continue;
    await own(path, st);
    if (st.isDirectory()) for (const name of await readdir(path)) stack.push(join(path, name));
  }
  // The root last: its owner is what says the walk is done (one cut short runs again next start).
  await own(dir, root);
  return changed;
}

/** The base of the width-sized range holding `id`, among `bases`; undefined when none holds it. */
export function rangeBaseAmong(bases: number[], id: number): number | undefined {
  return bases.find((b) => id >= b && id < b + UID_SLOT_WIDTH);
}
