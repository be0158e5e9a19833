/**
 * Sound read-only analysis: every word is literal (or a glob that cannot become an option),
 * prefixes are allowlisted, wrappers and command are readers in reading forms, output goes
 * nowhere but /dev/null, nothing runs in the background.
 */
import type { BashAnalysis } from "./analysis.js";
import { isSafePrefix } from "./env-prefix.js";
import { anyWords, READERS } from "./read-only-commands.js";
import { isTrustedName, unwrapReadOnly } from "./read-only-wrappers.js";
import type { Redirect, SimpleCommand } from "./simple-commands.js";
import { isSoundLine } from "./sound-line.js";
import { isExact } from "./word-shape.js";
import type { Word } from "./words.js";

/** SAFE_COMMANDS of the reference, without `tee`; suggestions never propose these. */
export const SAFE_COMMANDS: ReadonlySet<string> = new Set([
  "echo",
  "cat",
  "ls",
  "pwd",
  "cd",
  "true",
  "false",
  "printf",
  "grep",
]);

/** Paths bash opens as sockets itself (even for `<`, and the descriptor goes both ways). */
const SOCKET_PATH = /^\/dev\/(tcp|udp)\//;

/**
 * Readers found through PATH only: the reader's `git` is reader-bin/git, first on its PATH
 * (src/sandbox/executor/user-env.mjs); `/usr/bin/git` would be the one that runs textconv drivers.
 */
const BY_PATH_ONLY: ReadonlySet<string> = new Set(["git"]);

/** Redirects that write nothing: input, /dev/null, or duplicating a numbered descriptor. */
export function isHarmlessRedirect(r: Redirect): boolean {
  if (r.target !== null && !isExact(r.target)) return false;
  if (SOCKET_PATH.test(r.target?.value ?? "")) return false;
  if (!r.op.includes(">")) return r.op !== "<>";
  const t = r.target?.value;
  if (t === "/dev/null") return true;
  return (r.op === ">&" || r.op === "<&") && t != null && /^(\d+|-)$/.test(t);
}

/** Is one simple command read-only? (Memoised per analysed command.) Line checks are separate. */
export function isReadOnlyCommand(cmd: SimpleCommand): boolean {
  cmd.memo.readOnly ??= computeCommand(cmd);
  return cmd.memo.readOnly;
}

function computeCommand(cmd: SimpleCommand): boolean {
  if (cmd.odd || cmd.nextOp === "&" || cmd.words.length === 0) return false;
  if (!cmd.prefixAssignments.every((n, i) => isSafePrefix(n, cmd.prefixValues[i]))) return false;
  if (!cmd.redirects.every(isHarmlessRedirect)) return false;
  // No wrapper (the common case): the resolved name and arguments are the words themselves.
  if (cmd.wrappers.length === 0) {
    const check = cmd.name === null ? undefined : READERS.get(cmd.name);
    const word = cmd.words[0] as Word;
    if (check === undefined || !isExact(word) || !isTrustedName(word.value as string)) return false;
    if (BY_PATH_ONLY.has(cmd.name as string) && word.value !== cmd.name) return false;
    return check(cmd.args);
  }
  const at = unwrapReadOnly(cmd.words);
  if (at === null) return false;
  if (at.lookupOnly) return anyWords(cmd.words.slice(at.index));
  const word = cmd.words[at.index];
  if (word === undefined || !isExact(word) || !isTrustedName(word.value as string)) return false;
  const name = (word.value as string).slice((word.value as string).lastIndexOf("/") + 1);
  const check = READERS.get(name);
  if (check === undefined || (BY_PATH_ONLY.has(name) && word.value !== name)) return false;
  // Under xargs more words arrive on stdin: only commands that accept any words qualify.
  if (at.viaXargs && check !== anyWords) return false;
  return check(cmd.words.slice(at.index + 1));
}

/** Strict read-only verdict for a whole line, memoised per analysis. */
export function isReadOnlyAnalysis(a: BashAnalysis): boolean {
  a.memo.readOnly ??= computeLine(a);
  return a.memo.readOnly;
}

function computeLine(a: BashAnalysis): boolean {
  if (a.commands.length === 0 || !a.looseRedirects.every(isHarmlessRedirect)) return false;
  // The per-command verdicts first: they are cheap to refuse and memoised for the rule layer.
  return a.commands.every(isReadOnlyCommand) && isSoundLine(a);
}
