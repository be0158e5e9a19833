/**
 * Dangerous removal (docs/permission.md#stricter-dangerous-removal): an `rm`/`rmdir` (found through wrappers
 * and paths) whose target is `/`, home, a direct child of `/`, or a glob directly at `/` or home.
 */
import { posix } from "node:path";
import { normalizePath } from "../paths.js";
import type { BashAnalysis } from "./analysis.js";
import type { SimpleCommand } from "./simple-commands.js";

const ALWAYS_DANGEROUS = new Set([
  "/",
  "~",
  "$HOME",
  "\u0024{HOME}",
  "*",
  "./*",
  "/*",
  "~/*",
  "$HOME/*",
  "\u0024{HOME}/*",
]);
const GLOB = /[*?[]/;

/** Is `abs` (normalised) `/`, home, or a direct child of `/`? */
function isCritical(abs: string, home: string): boolean {
  return abs === "/" || abs === home || posix.dirname(abs) === "/";
}

/** Is one removal target dangerous? `lit` is as written (quotes removed), `value` expanded. */
export function isDangerousRemovalTarget(
  lit: string,
  value: string | null,
  cwd: string | null,
  sessionCwd: string,
  home: string,
): boolean {
  if (ALWAYS_DANGEROUS.has(lit)) return true;
  if (value === null) return false;
  const base = cwd ?? sessionCwd;
  // From an unknown directory, climbing with `..` could reach anything.
  if (cwd === null && !value.startsWith("/") && value.split("/").includes("..")) return true;
  const abs = normalizePath(value, base, home);
  const homeAbs = normalizePath(home, "/", home);
  if (isCritical(abs, homeAbs)) return true;
  // A glob directly inside a critical directory (`/*`, `~/*`, `/usr/*`) empties it.
  if (GLOB.test(posix.basename(abs))) {
    const dir = posix.dirname(abs);
    if (!GLOB.test(dir) && isCritical(dir, homeAbs)) return true;
  }
  return false;
}

/** The targets of one `rm`/`rmdir`: every non-flag word, and every word after `--`. */
function removalTargets(cmd: SimpleCommand): SimpleCommand["args"] {
  const out: SimpleCommand["args"] = [];
  let onlyPaths = false;
  for (const a of cmd.args) {
    if (!onlyPaths && a.value === "--") onlyPaths = true;
    else if (onlyPaths || !(a.value ?? a.lit).startsWith("-")) out.push(a);
  }
  return out;
}

/** The first dangerous removal target of the line, as written, or null. */
export function findDangerousRemoval(a: BashAnalysis, sessionCwd: string, home: string): string | null {
  for (const cmd of a.commands) {
    if (cmd.name !== "rm" && cmd.name !== "rmdir") continue;
    for (const t of removalTargets(cmd)) {
      if (isDangerousRemovalTarget(t.lit, t.value, cmd.cwd, sessionCwd, home)) return t.lit;
    }
  }
  return null;
}

/** The layer-5 message for a dangerous removal target. */
export function removalMessage(path: string): string {
  return `Dangerous removal operation detected: '${path}'\n\nThis command would remove a critical system directory. This requires explicit approval and cannot be auto-allowed by permission rules.`;
}
