/**
 * Read-only forms of git: harmless global options only (no `-c`, `--config-env`, `--exec-path=`,
 * `--git-dir`, `--work-tree`, `-p`), then a reading subcommand with known, harmless options;
 * `branch`, `tag`, `remote`, `config` only in their listing or reading forms.
 */
import {
  BLAME_SPEC,
  BUILTIN_PRETTY,
  CAT_FILE_SPEC,
  CONFIG_SPEC,
  DESCRIBE_SPEC,
  DIFF_SPEC,
  GREP_SPEC,
  LOG_SPEC,
  LS_FILES_SPEC,
  LS_TREE_SPEC,
  REV_PARSE_SPEC,
  SHORTLOG_SPEC,
  STATUS_SPEC,
} from "./git-options.js";
import { argsAreKnown, type OptionSpec, parseArgs } from "./options.js";
import { isExact, isInert } from "./word-shape.js";
import type { Word } from "./words.js";

/** Global options that change nothing a read-only call could misuse. */
const HARMLESS_GLOBALS = new Set([
  "--no-pager",
  "-P",
  "--no-optional-locks",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-replace-objects",
]);

/**
 * A value that runs no program. A format: no `%G` (signature checks run gpg) and no
 * config-defined pretty name. `--submodule`: not `diff`, which runs `git diff` inside the
 * submodule, under its own configuration (diff.external, filters), which reader-bin/git never read.
 */
function isPlainFormat(option: string, value: string): boolean {
  if (option === "--submodule") return value === "short" || value === "log";
  if (option !== "--format" && option !== "--pretty") return true;
  if (value.includes("%G")) return false;
  return value.includes("%") || BUILTIN_PRETTY.has(value) || /^t?format:/.test(value);
}

/** A subcommand's check of args[from..]. */
type SubcommandCheck = (args: readonly Word[], from: number) => boolean;

function bySpec(spec: OptionSpec): SubcommandCheck {
  const checked: OptionSpec = { ...spec, checkValue: isPlainFormat };
  return (args, from) => argsAreKnown(args, checked, from);
}

const logReadOnly = bySpec(LOG_SPEC);

function allInert(args: readonly Word[]): boolean {
  return args.every(isInert);
}

/** Flags `git branch` accepts in listing form; `=value` variants are accepted for the long ones. */
const BRANCH_LIST_FLAGS = new Set([
  "-a",
  "--all",
  "-r",
  "--remotes",
  "-l",
  "--list",
  "-v",
  "-vv",
  "--verbose",
  "-q",
  "--quiet",
  "--no-color",
  "--color",
  "--column",
  "--no-column",
  "--abbrev",
  "--no-abbrev",
  "--show-current",
  "-i",
  "--ignore-case",
  "--omit-empty",
  "--merged",
  "--no-merged",
  "--contains",
  "--no-contains",
  "--points-at",
  "--sort",
  "--format",
]);
/** `git tag` listing flags; `-v`/`--verify` are left out: verifying runs gpg. */
const TAG_LIST_FLAGS = new Set([
  "-l",
  "--list",
  "-n",
  "--sort",
  "--format",
  "--color",
  "--column",
  "--no-column",
  "-i",
  "--ignore-case",
  "--contains",
  "--no-contains",
  "--merged",
  "--no-merged",
  "--points-at",
  "--omit-empty",
]);
/** Flags after which positional words are patterns or commits, not names to create. */
const LIST_MODE = new Set([
  "-l",
  "--list",
  "--contains",
  "--no-contains",
  "--merged",
  "--no-merged",
  "--points-at",
]);
/** Long flags whose value may come as the next word. */
const VALUE_FLAGS = new Set(["--sort", "--format", "--points-at"]);

function flagName(a: string): string {
  const eq = a.indexOf("=");
  return eq === -1 ? a : a.slice(0, eq);
}

/** Listing form of `git branch` / `git tag`: only listing flags; names only in list mode. */
function isListing(args: readonly string[], allowed: ReadonlySet<string>): boolean {
  let listMode = false;
  let positional = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith("-")) {
      positional++;
      continue;
    }
    const name = flagName(a);
    const isNumbered = /^-n\d*$/.test(a) && allowed === TAG_LIST_FLAGS;
    if (!allowed.has(name) && !isNumbered) return false;
    if (LIST_MODE.has(name)) listMode = true;
    // A ref-filter format with a signature atom would run gpg.
    if (name === "--format" && /%G|signature/.test(a.includes("=") ? a : (args[i + 1] ?? ""))) return false;
    if (VALUE_FLAGS.has(name) && !a.includes("=")) {
      if ((args[i + 1] ?? "-").startsWith("-")) return false;
      i++;
    }
  }
  return positional === 0 || listMode;
}

function isRemoteListing(args: readonly string[]): boolean {
  const rest = args.filter((a) => a !== "-v" && a !== "--verbose");
  if (rest.length === 0) return true;
  if (rest[0] === "show") return rest.slice(1).every((a) => a === "-n" || !a.startsWith("-"));
  if (rest[0] === "get-url")
    return rest.slice(1).every((a) => ["--push", "--all"].includes(a) || !a.startsWith("-"));
  return false;
}

const CONFIG_READS = new Set([
  "--get",
  "--get-all",
  "--get-regexp",
  "--get-urlmatch",
  "--get-color",
  "--get-colorbool",
  "--list",
  "-l",
]);

/** `git config` with exactly one reading action and only known options (no `--edit`, no writes). */
function isConfigRead(args: readonly Word[], from: number): boolean {
  const p = parseArgs(args.slice(from), CONFIG_SPEC);
  if (p === null) return false;
  return p.options.filter((o) => CONFIG_READS.has(o.name)).length === 1;
}

/** `git reflog [show] <log options>`, `exists`, `list`; never `expire`, `delete`, `drop`, `write`. */
function isReflogRead(args: readonly Word[], from: number): boolean {
  const first = args[from]?.value;
  if (first === "show") return logReadOnly(args, from + 1);
  if (first === "exists" || first === "list") return allInert(args.slice(from + 1));
  if (first === "expire" || first === "delete" || first === "drop" || first === "write") return false;
  return logReadOnly(args, from);
}

function valuesOf(args: readonly Word[]): string[] | null {
  if (!allInert(args)) return null;
  return args.map((w) => w.value as string);
}

/** Each reading subcommand with the check of its arguments. */
const SUBCOMMANDS: ReadonlyMap<string, SubcommandCheck> = new Map([
  ["status", bySpec(STATUS_SPEC)],
  ["log", logReadOnly],
  ["show", logReadOnly],
  ["rev-list", logReadOnly],
  ["shortlog", bySpec(SHORTLOG_SPEC)],
  ["diff", bySpec(DIFF_SPEC)],
  ["blame", bySpec(BLAME_SPEC)],
  ["grep", bySpec(GREP_SPEC)],
  ["ls-files", bySpec(LS_FILES_SPEC)],
  ["ls-tree", bySpec(LS_TREE_SPEC)],
  ["cat-file", bySpec(CAT_FILE_SPEC)],
  ["rev-parse", bySpec(REV_PARSE_SPEC)],
  ["describe", bySpec(DESCRIBE_SPEC)],
  ["reflog", isReflogRead],
  ["config", isConfigRead],
  [
    "branch",
    (args, from) => {
      const v = valuesOf(args.slice(from));
      return v !== null && isListing(v, BRANCH_LIST_FLAGS);
    },
  ],
  [
    "tag",
    (args, from) => {
      const v = valuesOf(args.slice(from));
      return v !== null && isListing(v, TAG_LIST_FLAGS);
    },
  ],
  [
    "remote",
    (args, from) => {
      const v = valuesOf(args.slice(from));
      return v !== null && isRemoteListing(v);
    },
  ],
]);

/** Is `git <args>` read-only? Words must be literal; every option must be known and harmless. */
export function isReadOnlyGit(args: readonly Word[]): boolean {
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i] as Word;
    if (!isExact(w)) return false;
    const v = w.value as string;
    if (!v.startsWith("-")) break;
    if (HARMLESS_GLOBALS.has(v)) continue;
    // `-C <dir>`: a plain directory (a planted repository there is the sandbox's business).
    if (v === "-C") {
      const dir = args[i + 1];
      if (dir === undefined || !isExact(dir) || (dir.value as string).startsWith("-")) return false;
      i++;
      continue;
    }
    return v === "--version" && i === args.length - 1;
  }
  const sub = args[i]?.value;
  if (sub === undefined || sub === null) return false;
  const check = SUBCOMMANDS.get(sub);
  return check?.(args, i + 1) === true;
}
