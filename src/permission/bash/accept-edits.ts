/**
 * The ACCEPT_EDITS file-system auto-allow (permission.md §5.9, §10.9): every simple command is
 * read-only or one of `mkdir touch rm rmdir mv cp sed`, and every target of the line is a known
 * path inside a working directory.
 */
import { isInWorkingDirectory, normalizePath } from "../paths.js";
import type { PermissionContext } from "../types.js";
import type { BashAnalysis } from "./analysis.js";
import { isReadOnlyCommand } from "./read-only.js";
import { extractTargets } from "./target-paths.js";

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

/** The base command to name in the ALLOW message when the line qualifies, else null. */
export function acceptEditsBase(a: BashAnalysis, ctx: PermissionContext): string | null {
  if (a.failure !== null || a.injection !== null || a.hasError || a.commands.length === 0) return null;
  let base: string | null = null;
  for (const cmd of a.commands) {
    if (cmd.name !== null && ACCEPT_EDITS_COMMANDS.has(cmd.name) && cmd.wrappers.length === 0) {
      base ??= cmd.name;
      continue;
    }
    if (!isReadOnlyCommand(cmd)) return null;
  }
  const targets = extractTargets(a, ctx.cwd);
  if (base === null || targets.length === 0) return null;
  const inside = targets.every((t) => {
    if (t.value === null || (t.cwd === null && !t.value.startsWith("/"))) return false;
    return isInWorkingDirectory(normalizePath(t.value, t.cwd ?? ctx.cwd, ctx.home), ctx);
  });
  return inside ? base : null;
}
