/**
 * newcomer24: what `scripts/services.sh` installs on a fresh Debian machine. The host here has
 * everything; a fresh one does not. `services.sh --missing` prints the packages it would install
 * and changes nothing, so each case runs it in a copy of the repository's scripts with a PATH from
 * which the programs a fresh machine lacks are hidden.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "../..");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A checkout (scripts, package files; node_modules only if asked) and a bin dir without `hidden`. */
function freshMachine(
  hidden: string[],
  opts: { nodeModules?: boolean } = {},
): { root: string; path: string } {
  const root = mkdtempSync(join(tmpdir(), "toolshed-fresh-"));
  dirs.push(root);
  mkdirSync(join(root, "scripts"));
  copyFileSync(join(repo, "scripts/services.sh"), join(root, "scripts/services.sh"));
  for (const f of ["package.json", "package-lock.json"]) copyFileSync(join(repo, f), join(root, f));
  if (opts.nodeModules) {
    mkdirSync(join(root, "node_modules"));
    const hash = execFileSync("bash", ["-c", "cat package.json package-lock.json | sha256sum | cut -c1-16"], {
      cwd: root,
      encoding: "utf8",
    });
    writeFileSync(join(root, "node_modules/.toolshed-deps"), hash);
  }
  const bin = join(root, "bin");
  mkdirSync(bin);
  for (const d of ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]) {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {}
    for (const n of names) {
      if (hidden.includes(n)) continue;
      try {
        symlinkSync(join(d, n), join(bin, n));
      } catch {} // the first directory on PATH wins, as it would
    }
  }
  return { root, path: bin };
}

function missing(m: { root: string; path: string }): string[] {
  const out = execFileSync("bash", ["scripts/services.sh", "--missing"], {
    cwd: m.root,
    env: { PATH: m.path, HOME: m.root, DATA_DIR: join(m.root, "data") },
    encoding: "utf8",
  });
  return out.split("\n").filter(Boolean);
}

describe("services.sh on a fresh Debian machine", () => {
  it("installs curl (up.sh and cluster.sh wait for /readyz with it), procps and gcc", () => {
    const got = missing(freshMachine(["curl", "ps", "gcc"], { nodeModules: true }));
    expect(got).toEqual(expect.arrayContaining(["curl", "procps", "gcc"]));
  });

  it("installs node-gyp's python3, make and g++ before npm compiles tree-sitter", () => {
    const got = missing(freshMachine(["g++", "make", "python3"]));
    expect(got).toEqual(expect.arrayContaining(["g++", "make", "python3"]));
  });

  it("does not ask for build tools when node_modules is installed and current (a user without root)", () => {
    const got = missing(freshMachine(["g++", "make", "python3"], { nodeModules: true }));
    expect(got).not.toContain("g++");
    expect(got).not.toContain("make");
    // python3 still: the Python client's tests run with it (test/clients/python-client.int.test.ts).
    expect(got).toContain("python3");
  });

  it("stops with a plain message when Node.js is older than 20 (Debian 12's nodejs is 18)", () => {
    const m = freshMachine(["node"], { nodeModules: true });
    writeFileSync(join(m.path, "node"), "#!/bin/bash\n[[ $1 == -p ]] && echo 18 || echo v18.19.0\n", {
      mode: 0o755,
    });
    const run = spawnSync("bash", ["scripts/services.sh", "--missing"], {
      cwd: m.root,
      env: { PATH: m.path, HOME: m.root, DATA_DIR: join(m.root, "data") },
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("Node.js >= 20 with npm is needed first (found: v18.19.0)");
  });

  it("changes nothing: no data directory, no logs", () => {
    const m = freshMachine([]);
    missing(m);
    expect(readdirSync(m.root).sort()).toEqual(["bin", "package-lock.json", "package.json", "scripts"]);
  });
});
