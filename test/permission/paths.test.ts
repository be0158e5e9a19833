import { describe, expect, it } from "vitest";
import {
  DEFAULT_DANGEROUS_LISTS,
  expandHome,
  extendDangerousLists,
  isDangerousPath,
  isInWorkingDirectory,
  normalizePath,
} from "../../src/permission/paths.js";

const HOME = "/home/agent";
const CWD = "/workspace";
// biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's literal `${HOME}` is the input under test.
const BRACED_HOME = "${HOME}";

describe("expandHome", () => {
  it.each([
    ["~", HOME],
    ["~/x", `${HOME}/x`],
    ["$HOME", HOME],
    ["$HOME/x/y", `${HOME}/x/y`],
    [BRACED_HOME, HOME],
    [`${BRACED_HOME}/x`, `${HOME}/x`],
    ["~user/x", "~user/x"],
    ["$HOMEDIR/x", "$HOMEDIR/x"],
    ["a/~/b", "a/~/b"],
    ["/abs", "/abs"],
  ])("%s → %s", (p, expected) => {
    expect(expandHome(p, HOME)).toBe(expected);
  });
});

describe("normalizePath", () => {
  it.each([
    ["rel/a.txt", "/workspace/rel/a.txt"],
    ["./a/../b", "/workspace/b"],
    ["/workspace/../etc/passwd", "/etc/passwd"],
    ["//usr//bin/", "/usr/bin"],
    ["~/.bashrc", "/home/agent/.bashrc"],
    ["$HOME/../x", "/home/x"],
    ["../../../..", "/"],
    [".", "/workspace"],
  ])("%s → %s", (p, expected) => {
    expect(normalizePath(p, CWD, HOME)).toBe(expected);
  });
});

describe("isDangerousPath", () => {
  it.each([
    ["/workspace/.env", true],
    [".env", true],
    ["/workspace/.ENV", true],
    ["~/.bashrc", true],
    ["$HOME/.zshrc", true],
    ["/repo/.git/config", true],
    ["/repo/.GIT/hooks/pre-commit", true],
    ["/home/agent/.ssh/id_rsa", true],
    ["/home/agent/.ssh/config", true],
    ["/x/.vscode/settings.json", true],
    ["/x/.idea", true],
    ["/workspace/.env.production.local", true],
    // git's XDG configuration (stricter than the reference: its settings run programs).
    ["~/.config/git/config", true],
    ["/home/agent/.CONFIG/Git/attributes", true],
    ["/workspace/.config/git/config", true],
    ["/workspace/.config/gitx/config", false],
    ["/workspace/git/config", false],
    ["/workspace/.env.example", false],
    ["/workspace/.bashrc.bak", false],
    ["/workspace/.gitignore", false],
    ["/workspace/.github/workflows/ci.yml", false],
    ["/workspace/src/main.ts", false],
    ["/workspace/.git/../src/a.ts", false],
  ])("%s → %s", (p, expected) => {
    expect(isDangerousPath(p, CWD, HOME, DEFAULT_DANGEROUS_LISTS)).toBe(expected);
  });

  it("a cwd inside .git makes every relative path dangerous", () => {
    expect(isDangerousPath("a.txt", "/repo/.git", HOME, DEFAULT_DANGEROUS_LISTS)).toBe(true);
  });

  it.each([
    ["/workspace/secrets.yml", true],
    ["/workspace/config/credentials.json", true],
    ["/workspace/credentials.json", false],
    ["/workspace/private/x", true],
    ["/workspace/deploy/keys/a.pem", true],
    ["/workspace/keys/a.pem", false],
  ])("extended lists: %s → %s", (p, expected) => {
    const lists = extendDangerousLists(DEFAULT_DANGEROUS_LISTS, {
      additionalDangerousFiles: ["SECRETS.yml", "config/credentials.json"],
      additionalDangerousDirectories: ["private", "deploy/keys"],
    });
    expect(isDangerousPath(p, CWD, HOME, lists)).toBe(expected);
  });

  it("extending keeps the defaults and leaves the base untouched", () => {
    const lists = extendDangerousLists(DEFAULT_DANGEROUS_LISTS, { additionalDangerousFiles: ["x"] });
    expect(lists.files).toContain(".env");
    expect(lists.files).toContain("x");
    expect(DEFAULT_DANGEROUS_LISTS.files).not.toContain("x");
    expect(extendDangerousLists(DEFAULT_DANGEROUS_LISTS)).toBe(DEFAULT_DANGEROUS_LISTS);
  });

  it("empty lists disable the check", () => {
    expect(isDangerousPath("/x/.env", CWD, HOME, { files: [], directories: [] })).toBe(false);
  });
});

describe("isInWorkingDirectory", () => {
  it.each<[string, string[], boolean]>([
    ["/workspace/a.txt", [], true],
    ["/workspace", [], true],
    ["a/b.txt", [], true],
    ["../etc/passwd", [], false],
    ["/workspace/../etc/passwd", [], false],
    ["/workspace2/x", [], false],
    ["/tmp/project/x", ["/tmp/project"], true],
    ["/tmp/project2/x", ["/tmp/project"], false],
    ["/tmp/project", ["/tmp/project/"], true],
    ["/home/agent/proj/x", ["~/proj"], true],
    ["/home/agent/proj/x", ["$HOME/proj"], true],
    ["/etc/passwd", ["/"], true],
    ["/", ["/"], true],
    ["/srv/data/x", ["data"], false],
    ["/workspace/data/x", ["data"], true],
  ])("%s in %j → %s", (p, dirs, expected) => {
    expect(isInWorkingDirectory(p, { cwd: CWD, home: HOME, workingDirectories: dirs })).toBe(expected);
  });
});
