/**
 * Suggested allow rules for a Bash call (docs/permission.md#bash-suggestions), as the reference makes them:
 * the first two words of each of the first five simple commands, flags not skipped, `Bash(P:*)`.
 */
import type { PermissionRule } from "../types.js";
import type { BashAnalysis } from "./analysis.js";
import { SAFE_COMMANDS } from "./read-only.js";
import type { SimpleCommand } from "./simple-commands.js";

/** Environment variables that may prefix a suggested command. */
export const SAFE_ENV_VARS: ReadonlySet<string> = new Set([
  "NODE_ENV",
  "PYTHONUNBUFFERED",
  "RUST_LOG",
  "LANG",
  "TERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "DEBUG",
  "VERBOSE",
  "CI",
  "PATH",
  "HOME",
  "USER",
  "SHELL",
  "EDITOR",
  "PAGER",
  "TZ",
  "LC_ALL",
  "LC_CTYPE",
  "COLUMNS",
  "LINES",
  "CLICOLOR",
  "CLICOLOR_FORCE",
]);

const MAX_SUBCOMMANDS = 5;

/** The two-word prefix of one simple command, or null. */
export function commandPrefix(cmd: SimpleCommand): string | null {
  const words = cmd.words;
  const name = words[0];
  if (!name) return null;
  for (const n of cmd.prefixAssignments) if (!SAFE_ENV_VARS.has(n)) return null;
  if (SAFE_COMMANDS.has(name.raw.toLowerCase())) return null;
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as (typeof words)[number];
    if (w.type === "word") return `${name.raw} ${w.raw}`;
  }
  return null;
}

/** Up to five `Bash(P:*)` allow rules, source "suggested" (a fresh array each call). */
export function suggestRules(a: BashAnalysis): PermissionRule[] {
  a.memo.suggestions ??= computeRules(a);
  return a.memo.suggestions.map((r) => ({ ...r }));
}

function computeRules(a: BashAnalysis): PermissionRule[] {
  if (a.command === "" || a.failure !== null) return [];
  const prefixes: string[] = [];
  let top = 0;
  for (const cmd of a.commands) {
    if (cmd.depth !== 0) continue;
    if (top++ === MAX_SUBCOMMANDS) break;
    const p = commandPrefix(cmd);
    if (p !== null && !prefixes.includes(p)) prefixes.push(p);
  }
  return prefixes.slice(0, MAX_SUBCOMMANDS).map((p) => ({
    toolName: "Bash",
    ruleContent: `${p}:*`,
    behavior: "allow",
    source: "suggested",
  }));
}
