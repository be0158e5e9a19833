/**
 * Attack 2, filling the host disk: /workspace must carry a kernel-enforced quota of bytes
 * (SANDBOX_DISK_MB) and inodes (SANDBOX_INODES), so that one session cannot take SQLite, Redis and
 * Docker down with it. The harness runs with a 32 MB / 2000 inode quota.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { harnessFor, newAttacker, runtimes } from "./support.js";

const DISK_MB = 32;
const INODES = 2000;

/** Kilobytes used under `dir` on its own file system (-x: a mounted workspace is not counted twice). */
function hostKb(dir: string): number {
  return Number(execFileSync("du", ["-skx", dir], { encoding: "utf8" }).split(/\s/)[0]);
}

describe.each(runtimes)("containment under %s: /workspace has a byte and inode quota", (runtime) => {
  const h = harnessFor(runtime, { SANDBOX_DISK_MB: String(DISK_MB), SANDBOX_INODES: String(INODES) });

  it("a 100 MB write stops at the byte quota and the host's DATA_DIR barely grows", async () => {
    const a = await newAttacker(h(), { allow: ["Bash"] });
    await a.bash("true"); // the container and its workspace exist before the baseline
    const before = hostKb(h().config.DATA_DIR);
    const { out } = await a.bash("head -c 100M /dev/zero > /workspace/big; echo rc=$?; du -sm /workspace");
    const grownKb = hostKb(h().config.DATA_DIR) - before;

    const rc = Number(/rc=(\d+)/.exec(out)?.[1]);
    const usedMb = Number(/^(\d+)\s+\/workspace$/m.exec(out)?.[1]);
    expect
      .soft(rc !== 0 || /No space left|Disk quota exceeded/.test(out), `the write went through: ${out}`)
      .toBe(true);
    expect.soft(usedMb, `MB in /workspace: ${out}`).toBeLessThanOrEqual(DISK_MB + 1);
    expect.soft(grownKb, `DATA_DIR grew by ${grownKb} KiB`).toBeLessThanOrEqual(40 * 1024);
  });

  it("creating 5000 files stops near the inode quota", async () => {
    const a = await newAttacker(h(), { allow: ["Bash", "Write"] });
    const { out } = await a.script(
      "mkdir -p /workspace/many && cd /workspace/many\nfor i in {1..5000}; do : > f$i || break; done\nls | wc -l\n",
    );
    // stdout (the count) and stderr (the shell's ENOSPC message) are both in `out`.
    const files = Number(
      out
        .split("\n")
        .filter((l) => /^\s*\d+\s*$/.test(l))
        .at(-1),
    );
    expect(files, `files created before the quota stopped the loop: ${out}`).toBeLessThanOrEqual(
      INODES + 100,
    );
    // Most of the quota was usable: it was the quota that stopped the loop, not something else.
    expect(files, out).toBeGreaterThanOrEqual(INODES / 2);
  });
});
