import { describe, expect, it } from "vitest";
import { compileFileGlob, matchFileGlob } from "../../src/permission/file-glob.js";

const CWD = "/workspace";
const HOME = "/home/agent";

describe("matchFileGlob", () => {
  it.each<[string, string, string, boolean]>([
    // basename patterns: any depth
    ["basename", "*.py", "/a/b/test.py", true],
    ["basename", "*.py", "/a/b/test.pyc", false],
    ["basename", ".env", "/workspace/deep/dir/.env", true],
    ["basename", ".env", "/workspace/.env.example", false],
    ["basename", "test?.py", "/x/test1.py", true],
    ["basename", "test?.py", "/x/test12.py", false],
    ["basename", "*", "/any/thing", true],
    // `*` and `?` stay within one segment
    ["segment", "/a/*", "/a/b", true],
    ["segment", "/a/*", "/a/b/c", false],
    ["segment", "/a/?/c", "/a/b/c", true],
    ["segment", "/a/?/c", "/a/bb/c", false],
    ["segment", "/a/*.ts", "/a/.hidden.ts", true],
    // `**` spans directories (zero or more)
    ["globstar", "/tmp/**", "/tmp/a/b/c", true],
    ["globstar", "/tmp/**", "/tmp", true],
    ["globstar", "/tmp/**", "/tmpx/a", false],
    ["globstar", "/x/**/y", "/x/y", true],
    ["globstar", "/x/**/y", "/x/a/b/y", true],
    ["globstar", "/x/**/y", "/x/a/b/z", false],
    ["globstar", "/**", "/", true],
    ["globstar", "/**", "/etc/passwd", true],
    ["globstar", "**/.env", "/home/agent/.env", true],
    ["globstar", "**/.env", "/workspace/a/.env", true],
    ["globstar", "**/*.pem", "/etc/ssl/key.pem", true],
    ["globstar", "**/*.pem", "/etc/ssl/key.pem.bak", false],
    // classes
    ["class", "/a/[bc].txt", "/a/b.txt", true],
    ["class", "/a/[bc].txt", "/a/d.txt", false],
    ["class", "/a/[!bc].txt", "/a/d.txt", true],
    ["class", "/a/[!bc].txt", "/a/b.txt", false],
    ["class", "/a/[a-c]x", "/a/bx", true],
    ["class", "/a/[!a]", "/a//", false],
    ["class", "[abc", "/x/[abc", true],
    // relative patterns with `/` are anchored at the session cwd
    ["anchored", "src/**", "/workspace/src/a.ts", true],
    ["anchored", "src/**", "src/a.ts", true],
    ["anchored", "src/**", "/repo/src/a.ts", false],
    ["anchored", "src/*.ts", "/workspace/src/a.ts", true],
    ["anchored", "src/*.ts", "/workspace/lib/src/a.ts", false],
    ["anchored", "./src/**", "/workspace/src/a.ts", true],
    ["anchored", "../other/**", "/other/x", true],
    // home in patterns and paths
    ["home", "~/.ssh/**", "/home/agent/.ssh/id_rsa", true],
    ["home", "/home/agent/**", "~/notes.md", true],
    ["home", "$HOME/x", "/home/agent/x", true],
    // traversal: paths are normalised before matching
    ["traversal", "/etc/**", "/workspace/../etc/passwd", true],
    ["traversal", "/etc/passwd", "/workspace/../etc/passwd", true],
    ["traversal", "/workspace/**", "/workspace/../etc/passwd", false],
    ["traversal", "/workspace/**", "../etc/passwd", false],
    ["traversal", "/workspace/**", "/workspace/a/../../etc/passwd", false],
    ["traversal", "/etc/passwd", "//etc//passwd", true],
    ["traversal", "/etc/**", "/workspace/./../etc/shadow", true],
    // literal characters
    ["literal", "/a/b.c", "/a/bxc", false],
    ["literal", "/a/(x)+", "/a/(x)+", true],
    ["literal", "/a/(x)+", "/a/xx", false],
    ["case", "*.PY", "/a/test.py", false],
    ["empty path", "**", "", false],
  ])("%s: %s vs %s → %s", (_kind, pattern, path, expected) => {
    expect(matchFileGlob(pattern, path, CWD, HOME)).toBe(expected);
  });

  it("anchors at the cwd given, and caches per cwd", () => {
    expect(matchFileGlob("src/**", "/repo/src/a.ts", "/repo", HOME)).toBe(true);
    expect(matchFileGlob("src/**", "/repo/src/a.ts", CWD, HOME)).toBe(false);
    expect(compileFileGlob("src/**", CWD, HOME)).toBe(compileFileGlob("src/**", CWD, HOME));
  });
});
