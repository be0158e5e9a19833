/**
 * The executor's file writes (src/sandbox/executor/file-ops.mjs) on a full disk: overwriting a file
 * whose new content does not fit leaves the old content whole (before: `fs.writeFile` truncated it
 * first, and ENOSPC left it empty or partial), and what a write keeps of a file (its mode, group,
 * owner, hard links, the symlink written through) is kept. Run as the file helper runs: real uid 0,
 * effective uid 65534 (the agent), on a 1 MB tmpfs of the test's own (mount: root only).
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fillDisk } from "../../support/fill-disk.js";

const AGENT = 65534;
const isRoot = process.getuid?.() === 0;
const OPS = new URL("../../../src/sandbox/executor/file-ops.mjs", import.meta.url).href;

/** writeFile(path, content) as the agent; "ok" or the error's code. */
function writeAsAgent(path: string, content: string | Buffer): string {
  const script = `import { readFileSync } from "node:fs";
    import { writeFile } from ${JSON.stringify(OPS)};
    const data = readFileSync(0);
    process.setgroups([${AGENT}]); process.setegid(${AGENT}); process.seteuid(${AGENT}); process.umask(0o002);
    const out = await writeFile(${JSON.stringify(path)}, data).then(() => "ok", (e) => e.code);
    console.log(JSON.stringify(out));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    input: Buffer.from(content),
    timeout: 20_000,
  });
  return JSON.parse(String(out));
}

/** A file of the agent's own, as the agent's Write would have made it. */
function agentFile(path: string, content: string | Buffer, mode = 0o664): void {
  writeFileSync(path, content);
  chownSync(path, AGENT, AGENT);
  chmodSync(path, mode);
}

describe.skipIf(!isRoot)(
  isRoot ? "writes on a full disk" : "writes on a full disk: skipped, mounting a tmpfs needs root",
  () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), "file-write-"));
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m,mode=0777", "tmpfs", dir]);
    });
    afterEach(() => {
      spawnSync("umount", ["-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    });

    it("an overwrite that does not fit fails ENOSPC and leaves the old content whole", () => {
      const f = join(dir, "f.txt");
      const before = "old line\n".repeat(20_000); // 180 kB
      agentFile(f, before, 0o640);
      fillDisk(join(dir, "filler"));
      // Bigger, the same size, smaller than free space needs: all refused, none truncates.
      for (const next of ["new line\n".repeat(30_000), "N".repeat(before.length)]) {
        expect(writeAsAgent(f, next)).toBe("ENOSPC");
        expect(readFileSync(f, "utf8")).toBe(before);
        expect(statSync(f).mode & 0o7777).toBe(0o640);
      }
      // No temporary file left behind, holding space.
      expect(readdirSync(dir).sort()).toEqual(["f.txt", "filler"]);
      // A new file that does not fit is not left either.
      expect(writeAsAgent(join(dir, "new.txt"), "x".repeat(100_000))).toBe("ENOSPC");
      expect(readdirSync(dir).sort()).toEqual(["f.txt", "filler"]);
      // Space freed: the write goes through.
      rmSync(join(dir, "filler"));
      expect(writeAsAgent(f, "after\n")).toBe("ok");
      expect(readFileSync(f, "utf8")).toBe("after\n");
    });

    it("keeps the mode, group and owner, writes through a symlink", () => {
      const own = join(dir, "own.sh");
      agentFile(own, "echo zero\n", 0o710);
      expect(writeAsAgent(own, "echo zero again\n")).toBe("ok");
      expect(readFileSync(own, "utf8")).toBe("echo zero again\n");
      expect([statSync(own).mode & 0o7777, statSync(own).uid, statSync(own).gid]).toEqual([
        0o710,
        AGENT,
        AGENT,
      ]);

      const f = join(dir, "script.sh");
      agentFile(f, "echo one\n", 0o750);
      chownSync(f, AGENT, 0); // a group of the file's own (root's; the agent is not in it)
      symlinkSync("script.sh", join(dir, "link"));
      expect(writeAsAgent(join(dir, "link"), "echo two\n")).toBe("ok");
      expect(lstatSync(join(dir, "link")).isSymbolicLink()).toBe(true);
      const st = statSync(f);
      expect(readFileSync(f, "utf8")).toBe("echo two\n");
      expect([st.mode & 0o7777, st.uid, st.gid]).toEqual([0o750, AGENT, 0]);

      // Another user's file the agent may write (mode 0666): still that user's after the write.
      const shared = join(dir, "shared.txt");
      writeFileSync(shared, "a\n");
      chmodSync(shared, 0o666);
      expect(writeAsAgent(shared, "b\n")).toBe("ok");
      expect(readFileSync(shared, "utf8")).toBe("b\n");
      expect([statSync(shared).uid, statSync(shared).mode & 0o7777]).toEqual([0, 0o666]);

      // A file in a directory the agent may not create in, but may write: written in place.
      const closed = join(dir, "closed");
      mkdirSync(closed, { mode: 0o755 });
      agentFile(join(closed, "f"), "long old content\n");
      expect(writeAsAgent(join(closed, "f"), "new\n")).toBe("ok");
      expect(readFileSync(join(closed, "f"), "utf8")).toBe("new\n");
      expect(readdirSync(dir).sort()).toEqual(["closed", "link", "own.sh", "script.sh", "shared.txt"]);
    });

    it("keeps hard links sharing the content, and their old content on a full disk", () => {
      const f = join(dir, "a");
      agentFile(f, "1234567890\n".repeat(5_000));
      linkSync(f, join(dir, "b"));
      expect(writeAsAgent(f, "shorter\n")).toBe("ok");
      expect(readFileSync(join(dir, "b"), "utf8")).toBe("shorter\n");
      expect(statSync(join(dir, "b")).ino).toBe(statSync(f).ino);

      const before = "x".repeat(50_000);
      expect(writeAsAgent(f, before)).toBe("ok");
      fillDisk(join(dir, "filler"));
      // Growing past the free space: refused, cut back to the old content.
      expect(writeAsAgent(f, "y".repeat(200_000))).toBe("ENOSPC");
      expect(readFileSync(join(dir, "b"), "utf8")).toBe(before);
      // Not growing: needs no new space, so it goes through even on the full disk.
      expect(writeAsAgent(f, "z".repeat(40_000))).toBe("ok");
      expect(readFileSync(join(dir, "b"), "utf8")).toBe("z".repeat(40_000));
    });
  },
);
