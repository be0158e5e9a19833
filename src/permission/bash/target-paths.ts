/**
 * Target-path extraction (docs/permission.md#bash-layers): redirect files and the path arguments of
 * file-system commands, seen through quotes and `~`/`$HOME`; a path with any other expansion is
 * kept as unknown (value null) so it never counts as inside a working directory.
 */
import type { BashAnalysis } from "./analysis.js";
import type { FileArgs, Target } from "./command-memo.js";
import {
  FILE_COMMAND_SPECS,
  PATH_VALUED,
  TOUCH_PATH_VALUED,
  UNCHECKED_WRITES,
} from "./file-command-options.js";
import { scanArgs } from "./options.js";
import { sedCallOf, sedWritesElsewhere } from "./sed.js";
import type { SimpleCommand } from "./simple-commands.js";

export type { FileArgs, Target } from "./command-memo.js";

import { shapeOf } from "./word-shape.js";
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

function fromWord(source: string, w: Word, cwd: string | null): Target {
  return { source, lit: w.lit, value: w.value, cwd, shape: shapeOf(w) };
}

/** The targets of a command, and whether `accept_edits` must ask whatever they are. */
/** A backup suffix that names another path (`-S /tmp/x`) rather than a file-name ending. */
function isPathSuffix(o: { name: string; value: string | null }): boolean {
  return (o.name === "-S" || o.name === "--suffix") && !/^[A-Za-z0-9._~+-]*$/.test(o.value ?? "");
}

/** cp, mv, ln, install, touch, mkdir, rm, rmdir read by their real option tables. */
function gnuFileArgs(cmd: SimpleCommand, name: string): FileArgs | null {
  const spec = FILE_COMMAND_SPECS.get(name);
  if (spec === undefined) return null;
  const scan = scanArgs(cmd.args, spec);
  const targets = scan.operands.map((w) => fromWord(name, w, cmd.cwd));
  let unchecked = scan.unsure;
  const risky = UNCHECKED_WRITES.get(name);
  for (const o of scan.options) {
    if (PATH_VALUED.has(o.name) || (name === "touch" && TOUCH_PATH_VALUED.has(o.name))) {
      // A value in its own word is shown as written (`~/.ssh`), an attached one as read.
      const lit = o.from.value === o.value ? o.from.lit : (o.value ?? "");
      targets.push({ source: name, lit, value: o.value, cwd: cmd.cwd, shape: shapeOf(o.from) });
    }
    if (risky?.has(o.name) || isPathSuffix(o)) unchecked = true;
  }
  return { targets, unchecked };
}

/** The last of `words` written as `lit` (what a Map built from them in order would hold). */
function lastWithLit(words: readonly Word[], lit: string): Word | undefined {
  for (let i = words.length - 1; i >= 0; i--) {
    const w = words[i] as Word;
    if (w.lit === lit) return w;
  }
  return undefined;
}

/** The path arguments of one file-system command (nothing for other commands), memoised. */
export function fileArgs(cmd: SimpleCommand): FileArgs {
  cmd.memo.files ??= computeFileArgs(cmd);
  return cmd.memo.files;
}

/** The path arguments of one file-system command (nothing for other commands). */
export function commandTargets(cmd: SimpleCommand): Target[] {
  return fileArgs(cmd).targets;
}

function computeFileArgs(cmd: SimpleCommand): FileArgs {
  const name = cmd.name;
  if (name === null || !PATH_COMMANDS.has(name)) return { targets: [], unchecked: false };
  const found = name === "sed" ? sedFileArgs(cmd) : (gnuFileArgs(cmd, name) ?? otherFileArgs(cmd, name));
  // With xargs the real targets arrive on stdin: record one unknown target.
  if (cmd.wrappers.includes("xargs")) {
    found.targets.unshift({ source: name, lit: "<stdin>", value: null, cwd: cmd.cwd, shape: 0 });
  }
  return found;
}

function sedFileArgs(cmd: SimpleCommand): FileArgs {
  const call = sedCallOf(cmd);
  const targets = call.files.map((f) =>
    fromWord(
      "sed",
      lastWithLit(cmd.args, f) ?? { raw: f, type: "word", value: f, lit: f, shape: undefined },
      cmd.cwd,
    ),
  );
  return { targets, unchecked: sedWritesElsewhere(call) };
}

/** chmod, chown, chgrp, tee, truncate, unlink, shred: every non-option word, as the reference reads them. */
function otherFileArgs(cmd: SimpleCommand, name: string): FileArgs {
  const out: Target[] = [];
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
      if (m)
        out.push({
          source: name,
          lit: m[1] as string,
          value: m[1] as string,
          cwd: cmd.cwd,
          shape: shapeOf(a),
        });
      if (v.startsWith("--reference")) skipFirst = false;
      continue;
    }
    if (skipFirst) {
      skipFirst = false;
      continue;
    }
    out.push(fromWord(name, a, cmd.cwd));
  }
  return { targets: out, unchecked: true };
}

/** The files of a simple command's redirects (fd duplications excluded, `<` included). */
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
