/**
 * Strict read-only analysis (permission.md §5.3, §10.3): every simple command must be a known
 * reader in a non-writing form, no output redirect except to /dev/null, and nothing the
 * injection layer would flag.
 */
import type { BashAnalysis } from "./analysis.js";
import { isReadOnlyGit } from "./read-only-git.js";
import type { Redirect, SimpleCommand } from "./simple-commands.js";

/** SAFE_COMMANDS of the reference, without `tee` (§10.3). */
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

/** Plain entries of READ_ONLY_COMMANDS; some are further checked in FLAG_CHECKS. */
const PLAIN_READERS = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "file",
  "stat",
  "wc",
  "grep",
  "rg",
  "ag",
  "ack",
  "find",
  "tree",
  "pwd",
  "which",
  "whereis",
  "type",
]);

/** Predicates that make `find` write or run something. */
const FIND_WRITERS = new Set([
  "-delete",
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-fprint",
  "-fprint0",
  "-fprintf",
  "-fls",
]);

/** Per-command rejections of flags that write files or run programs. */
const FLAG_CHECKS: Record<string, (a: string) => boolean> = {
  find: (a) => FIND_WRITERS.has(a),
  file: (a) => a === "-C" || a === "--compile",
  rg: (a) => a.startsWith("--pre") || a.startsWith("--hostname-bin"),
  ack: (a) => a.startsWith("--pager"),
  tree: (a) => a === "-o" || a === "-R" || a.startsWith("--output"),
};

/** `docker`, `gh`, `npm`, `pip` subcommands that only read (any arguments). */
const READING_SUBCOMMANDS: Record<string, readonly string[]> = {
  docker: ["ps", "images", "inspect", "logs", "version", "info"],
  npm: ["list", "ls"],
  pip: ["list", "show"],
};

/** Version queries that must stand alone. */
const VERSION_QUERIES: Record<string, readonly string[]> = {
  python: ["--version", "-V"],
  node: ["--version", "-v"],
};

/** Wrappers that do not change what the command can touch (no `sudo`, no `nohup`). */
const READ_ONLY_WRAPPERS = new Set(["env", "nice", "command", "time", "xargs", "timeout"]);

/** Variables that change which program runs or what it loads. */
const RISKY_ENV =
  /^(PATH|LD_\w*|DYLD_\w*|BASH_ENV|ENV|IFS|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|GIT_\w*|PAGER|MANPAGER|LESS\w*|EDITOR|VISUAL|NODE_OPTIONS|PYTHON\w*|PERL5?\w*|RUBY\w*)$/;

/**
 * Can argsReadOnly accept `name` for some arguments (SAFE_COMMANDS aside)? The same lookups it
 * makes, prototype keys included, so anything it would look at further still reaches it.
 */
function argumentChecked(name: string): boolean {
  return ARGUMENT_CHECKED.has(name);
}

/** `git`, `gh`, every key READING_SUBCOMMANDS / VERSION_QUERIES resolve (inherited ones too), PLAIN_READERS. */
const ARGUMENT_CHECKED: ReadonlySet<string> = new Set([
  "git",
  "gh",
  ...Object.keys(READING_SUBCOMMANDS),
  ...Object.keys(VERSION_QUERIES),
  ...Object.getOwnPropertyNames(Object.prototype),
  ...PLAIN_READERS,
]);

/** Output redirects that write nothing: to /dev/null, or duplicating a numbered descriptor. */
export function isHarmlessRedirect(r: Redirect): boolean {
  if (!r.op.includes(">")) return r.op !== "<>";
  const t = r.target?.value;
  if (t === "/dev/null") return true;
  return (r.op === ">&" || r.op === "<&") && t != null && /^(\d+|-)$/.test(t);
}

function argsReadOnly(name: string, args: readonly (string | null)[]): boolean {
  const known = args.every((a) => a !== null);
  const values = args as string[];
  if (name === "git") return known && isReadOnlyGit(values);
  const sub = READING_SUBCOMMANDS[name];
  if (sub) return known && sub.includes(values[0] ?? "");
  if (name === "gh") {
    const two = values.slice(0, 2).join(" ");
    return known && (["repo view", "issue list", "pr list"].includes(two) || values[0] === "status");
  }
  const version = VERSION_QUERIES[name];
  if (version) return known && values.length === 1 && version.includes(values[0] as string);
  if (SAFE_COMMANDS.has(name)) return true;
  if (!PLAIN_READERS.has(name)) return false;
  const check = FLAG_CHECKS[name];
  return check === undefined || (known && !values.some(check));
}

/** Is one simple command read-only? (Memoised per analysed command.) */
export function isReadOnlyCommand(cmd: SimpleCommand): boolean {
  cmd.memo.readOnly ??= computeCommand(cmd);
  return cmd.memo.readOnly;
}

function computeCommand(cmd: SimpleCommand): boolean {
  if (cmd.name === null || cmd.nameWord === null) return false;
  // `./ls` could be anything; only bare names and the system bin directories count.
  const written = cmd.nameWord.value ?? "";
  if (written.includes("/") && !/^\/(usr\/(local\/)?)?s?bin\/[^/]+$/.test(written)) return false;
  if (cmd.assignments.some((n) => RISKY_ENV.test(n))) return false;
  if (!cmd.wrappers.every((w) => READ_ONLY_WRAPPERS.has(w))) return false;
  if (
    cmd.wrappers.includes("time") &&
    cmd.wrapperOptions.some((o) => o.startsWith("-o") || o.startsWith("--o"))
  ) {
    return false;
  }
  if (!cmd.redirects.every(isHarmlessRedirect)) return false;
  // argsReadOnly's verdict for these names does not depend on the arguments.
  if (SAFE_COMMANDS.has(cmd.name)) return true;
  if (!argumentChecked(cmd.name)) return false;
  return argsReadOnly(
    cmd.name,
    cmd.args.map((a) => a.value),
  );
}

/** Any `>` outside the harmless redirects (even in quotes, as in §5.3) makes a line not read-only. */
function hasStrayGreaterThan(a: BashAnalysis): boolean {
  if (a.command.indexOf(">") === -1) return false;
  const allowed = [...a.commands.flatMap((c) => c.redirects), ...a.looseRedirects].filter(
    (r) => r.op.includes(">") && isHarmlessRedirect(r),
  );
  for (let i = a.command.indexOf(">"); i !== -1; i = a.command.indexOf(">", i + 1)) {
    const at = i;
    if (!allowed.some((r) => r.start <= at && at < r.end)) return true;
  }
  return false;
}

/** Strict read-only verdict for a whole line (§10.3), memoised per analysis. */
export function isReadOnlyAnalysis(a: BashAnalysis): boolean {
  a.memo.readOnly ??= computeLine(a);
  return a.memo.readOnly;
}

function computeLine(a: BashAnalysis): boolean {
  if (a.failure !== null || a.injection !== null || a.hasError) return false;
  if (a.commands.length === 0) return false;
  // Even quoted, these are how code gets smuggled into a later eval; never auto-allow them.
  if (/\$\(|`|<\(/.test(a.command)) return false;
  if (!a.looseRedirects.every(isHarmlessRedirect)) return false;
  if (a.assignments.some((n) => RISKY_ENV.test(n))) return false;
  return a.commands.every(isReadOnlyCommand) && !hasStrayGreaterThan(a);
}
