/**
 * The workspace re-own (workspace-owner.ts) runs as root on the host over a tree a tenant made.
 * attack31: a process swapping one of its directories for a symlink while the walk is inside it
 * made a path-based walk lchown the symlink's target's files (another tenant's workspace, any host
 * file) to the new range. Needs root (chown); skipped otherwise.
 */
import { spawn } from "node:child_process";
import { chownSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UID_SLOT_WIDTH } from "../../src/sandbox/uid-slots.js";
import { REOWN_MAX_DEPTH, rangeBaseAmong, reownWorkspace } from "../../src/sandbox/workspace-owner.js";

const BASE = 1_000_000_000;
const slot = (s: number) => BASE + UID_SLOT_WIDTH * s;
const [OLD, VICTIM, NEW] = [slot(5), slot(7), slot(9)];
const fromBase = (id: number) => rangeBaseAmong([OLD, VICTIM, NEW], id);
const FILES = 3000;

describe.skipIf(process.getuid?.() !== 0)("reownWorkspace against a tenant racing it", () => {
  let root: string;
  let ws: string;
  let outside: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "reown-"));
    ws = join(root, "ws");
    outside = join(root, "victim");
    for (const dir of [ws, join(ws, "a"), outside]) await mkdir(dir);
    // The same names inside `a` and in the victim's directory: a swapped `a` resolves to them.
    for (let i = 0; i < FILES; i++) {
      await writeFile(join(ws, "a", `f${i}`), "");
      await writeFile(join(outside, `f${i}`), "");
      chownSync(join(ws, "a", `f${i}`), OLD, OLD);
      chownSync(join(outside, `f${i}`), VICTIM, VICTIM);
    }
    chownSync(join(ws, "a"), OLD, OLD);
    chownSync(ws, OLD, OLD);
    await symlink(outside, join(ws, "link"));
  });
  afterEach(async () => rm(root, { recursive: true, force: true }));

  const victimOwners = async () => {
    const owners = new Set<number>();
    for (const name of await readdir(outside)) owners.add((await lstat(join(outside, name))).uid);
    return [...owners];
  };

  it("never changes a file outside the workspace when a directory is swapped for a symlink mid-walk", async () => {
    // The tenant's process: once the walk has re-owned the first file of `a` (first or last in
    // directory order, whichever way it walks), `a` becomes a symlink to the victim's directory.
    // Bounded: it polls for 30 s at most, then swaps once and ends.
    const racer = spawn(
      "python3",
      [
        "-c",
        `import os, time
os.chdir(${JSON.stringify(join(ws, "a"))})
names = os.listdir(".")
watch = [names[0], names[-1]]
os.chdir("..")
print("go", flush=True)
until = time.time() + 30
while time.time() < until and all(os.lstat("a/" + n).st_uid != ${NEW} for n in watch):
    pass
os.rename("a", "a.real"); os.rename("link", "a")`,
      ],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    let walking = true;
    const swappedMidWalk = new Promise((resolve) => racer.once("exit", () => resolve(walking)));
    await new Promise((resolve, reject) => {
      racer.stdout.once("data", resolve);
      racer.once("error", reject);
    });
    try {
      await reownWorkspace(ws, fromBase, NEW).catch(() => 0);
      walking = false;
      // The control: the swap happened while the walk was still going.
      expect(await swappedMidWalk).toBe(true);
    } finally {
      racer.kill("SIGKILL");
    }
    expect(await victimOwners()).toEqual([VICTIM]);
    // The walk went on through the directory it had opened: all of it is in the new range.
    expect((await lstat(join(ws, "a.real", "f0"))).uid).toBe(NEW);
  }, 60_000);

  it("re-owns a quiet tree whole, symlinks themselves included, their targets not", async () => {
    await mkdir(join(ws, "a", "deep", "er"), { recursive: true });
    await writeFile(join(ws, "a", "deep", "er", "x"), "");
    for (const p of ["a/deep", "a/deep/er", "a/deep/er/x"]) chownSync(join(ws, p), OLD, OLD);
    const changed = await reownWorkspace(ws, fromBase, NEW);
    expect(changed).toBe(FILES + 5); // files, a, a/deep, a/deep/er, x, the root (the link is root's)
    expect((await lstat(join(ws, "a", "deep", "er", "x"))).uid).toBe(NEW);
    expect((await lstat(join(ws, "a", "f0"))).gid).toBe(NEW);
    expect((await lstat(ws)).uid).toBe(NEW);
    expect(await victimOwners()).toEqual([VICTIM]);
  });

  it("refuses a tree nested deeper than it holds descriptors for, changing nothing outside it", async () => {
    const deep = join(ws, ...Array.from({ length: REOWN_MAX_DEPTH + 1 }, () => "d"));
    await mkdir(deep, { recursive: true });
    await expect(reownWorkspace(ws, fromBase, NEW)).rejects.toThrow(/deeper than 1024/);
    expect(await victimOwners()).toEqual([VICTIM]);
  });
});
