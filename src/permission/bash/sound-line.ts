/**
 * What a whole line must be before any auto-allow (read-only, `accept_edits`, or a read-only
 * command inside an allow-rule match) may look at its commands: fully parsed, nothing dynamic,
 * only the syntax of syntax.ts SOUND_TYPES, and no assignment outside a command's prefix.
 */
import type { BashAnalysis } from "./analysis.js";

/**
 * Substitutions, `$[…]` arithmetic and process substitutions, even quoted: how code is
 * smuggled into a later eval, so never auto-allowed (`$((` is caught by `$(`).
 */
const DYNAMIC = /\$[([]|`|[<>]\(/;

/** May the commands of this line be auto-allowed at all? (Memoised per analysis.) */
export function isSoundLine(a: BashAnalysis): boolean {
  a.memo.sound ??= computeSound(a);
  return a.memo.sound;
}

function computeSound(a: BashAnalysis): boolean {
  if (a.failure !== null || a.injection !== null || a.hasError || a.unsound) return false;
  // `A=1; cmd`, `BASH_CMDS[ls]=…`: assignments that are not a command's prefix.
  if (a.commands.length === 0 || a.assignments.length > 0) return false;
  return !DYNAMIC.test(a.command);
}
