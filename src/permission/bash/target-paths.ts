/**
 * Target-path extraction (permission.md §5.7, §10.6): redirect files and the path arguments of
 * file-system commands, seen through quotes and `~`/`$HOME`; a path with any other expansion is
 * kept as unknown (value null) so it never counts as inside a working directory.
 */
import type { BashAnalysis } from "./analysis.js";
import { sedCallOf } from "./sed.js";
import type { SimpleCommand } from "./simple-commands.js";
import type { Word } from "./words.js";

/** Commands whose non-flag arguments are paths (the reference's list, plus writers like `tee`). */
export const PATH_COMMANDS: ReadonlySet<string> = new Set([
  "rm",
  "mv",
  "cp",
  "chmod",
  "chown",
  "chgrp",
  "touch",
  "ln",
  "sed",
  "mkdir",
  "rmdir",
  "tee",
  "truncate",
  "unlink",
  "install",
  "shred",
]);

/** Commands whose first positional argument is a mode or an owner, not a path. */
const FIRST_IS_NOT_PATH = new Set(["chmod", "chown", "chgrp"]);

/** One extracted target. */
export interface Target {
  /** `redirect` or the command name. */
  source: string;
  /** Quotes removed, `~`/`$HOME` as written (for messages and best-effort checks). */
  lit: string;
  /** The literal path with home expanded; null when an unknown expansion is involved. */
  value: string | null;
  /** Directory the command runs in; null when unknown. */
  cwd: string | null;
}

function fromWord(source: string, w: Word, cwd: string | null): Target {
  return { source, lit: w.lit, value: w.value, cwd };
}

/** The last of `words` written as `lit` (what a Map built from them in order would hold). */
function lastWithLit(words: readonly Word[], lit: string): Word | undefined {
  for (let i = words.length - 1; i >= 0; i--) {
    const w = words[i] as Word;
    if (w.lit === lit) return w;
  }
  return undefined;
}

/** The path arguments of one file-system command (nothing for other commands). */
export function commandTargets(cmd: SimpleCommand): Target[] {
  const name = cmd.name;
  if (name === null || !PATH_COMMANDS.has(name)) return [];
  // With xargs the real targets arrive on stdin: record one unknown target.
  const unknown: Target[] = cmd.wrappers.includes("xargs")
    ? [{ source: name, lit: "<stdin>", value: null, cwd: cmd.cwd }]
    : [];
  if (name === "sed") {
    const files = sedCallOf(cmd).files;
    const out = unknown;
    for (const f of files) {
      out.push(
        fromWord(name, lastWithLit(cmd.args, f) ?? { raw: f, type: "word", value: f, lit: f }, cmd.cwd),
      );
    }
    return out;
  }
  const out = [...unknown];
  let onlyPaths = false;
  let skipFirst = FIRST_IS_NOT_PATH.has(name);
  for (const a of cmd.args) {
    const v = a.value;
    if (!onlyPaths && v === "--") {
      onlyPaths = true;
      continue;
    }
    if (!onlyPaths && v !== null && v.startsWith("-")) {
      const m = /^(?:--target-directory=|--reference=|-t)(.+)$/s.exec(v);
      if (m) out.push({ source: name, lit: m[1] as string, value: m[1] as string, cwd: cmd.cwd });
      if (v.startsWith("--reference")) skipFirst = false;
      continue;
    }
    if (skipFirst) {
      skipFirst = false;
      continue;
    }
    out.push(fromWord(name, a, cmd.cwd));
  }
  return out;
}

/** The files of a simple command's redirects (fd duplications excluded, `<` included as in §5.7). */
export function redirectTargets(cmd: Pick<SimpleCommand, "redirects" | "cwd">): Target[] {
  const out: Target[] = [];
  for (const r of cmd.redirects) {
    if (r.target === null) continue;
    if ((r.op === ">&" || r.op === "<&") && /^(\d+|-)$/.test(r.target.value ?? "")) continue;
    out.push(fromWord("redirect", r.target, cmd.cwd));
  }
  return out;
}

/** Every target of the line: redirects and file-system command arguments, in order. */
export function extractTargets(a: BashAnalysis, sessionCwd: string): Target[] {
  const out: Target[] = [];
  let moved = false;
  for (const cmd of a.commands) {
    if (cmd.redirects.length > 0) for (const t of redirectTargets(cmd)) out.push(t);
    if (cmd.name !== null && PATH_COMMANDS.has(cmd.name)) for (const t of commandTargets(cmd)) out.push(t);
    if (cmd.name === "cd" || cmd.name === "pushd" || cmd.name === "popd") moved = true;
  }
  // Loose redirects carry no position: after any `cd` their directory is unknown.
  if (a.looseRedirects.length > 0) {
    for (const t of redirectTargets({ redirects: a.looseRedirects, cwd: moved ? null : sessionCwd }))
      out.push(t);
  }
  return out;
}
