/**
 * The ACCEPT_EDITS file-system auto-allow: a sound line of read-only commands and plain
 * `mkdir touch rm rmdir mv cp sed`, every target a known path inside a working directory. Globs,
 * braces, unknown options and options that write elsewhere leave the decision to a person.
 */
import { isInWorkingDirectory, normalizePath } from "../paths.js";
import type { PermissionContext } from "../types.js";
import type { BashAnalysis } from "./analysis.js";
import { isSafePrefix } from "./env-prefix.js";
import { isReadOnlyCommand } from "./read-only.js";
import { isTrustedName } from "./read-only-wrappers.js";
import type { SimpleCommand } from "./simple-commands.js";
import { isSoundLine } from "./sound-line.js";
import { extractTargets, fileArgs } from "./target-paths.js";
import { isExact } from "./word-shape.js";

/** The file-system commands ACCEPT_EDITS may auto-allow. */
export const ACCEPT_EDITS_COMMANDS: ReadonlySet<string> = new Set([
  "mkdir",
  "touch",
  "rm",
  "rmdir",
  "mv",
  "cp",
  "sed",
]);

/** A file command whose every word is exactly what it runs with, read by its real options. */
function isPlainFileCommand(cmd: SimpleCommand): boolean {
  if (
    cmd.odd ||
    cmd.wrappers.length > 0 ||
    !cmd.prefixAssignments.every((n, i) => isSafePrefix(n, cmd.prefixValues[i]))
  )
    return false;
  const name = cmd.words[0];
  if (name === undefined || !isTrustedName(name.value ?? "/")) return false;
  return cmd.words.every(isExact) && !fileArgs(cmd).unchecked;
}

/** The base command to name in the ALLOW message when the line qualifies, else null. */
export function acceptEditsBase(a: BashAnalysis, ctx: PermissionContext): string | null {
  if (!isSoundLine(a)) return null;
  let base: string | null = null;
  for (const cmd of a.commands) {
    if (cmd.name !== null && ACCEPT_EDITS_COMMANDS.has(cmd.name) && cmd.wrappers.length === 0) {
      if (!isPlainFileCommand(cmd)) return null;
      base ??= cmd.name;
      continue;
    }
    if (!isReadOnlyCommand(cmd)) return null;
  }
  const targets = extractTargets(a, ctx.cwd);
  if (base === null || targets.length === 0) return null;
  const inside = targets.every((t) => {
    if (t.value === null || t.shape !== 0 || (t.cwd === null && !t.value.startsWith("/"))) return false;
    return isInWorkingDirectory(normalizePath(t.value, t.cwd ?? ctx.cwd, ctx.home), ctx);
  });
  return inside ? base : null;
}
