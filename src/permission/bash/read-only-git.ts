/**
 * Strict read-only forms of git (permission.md §10.3): `git branch`, `git tag` and `git remote`
 * only in their listing forms, no `--output` files, no pager commands, no reflog expiry.
 */

/** git subcommands that only read, provided no `--output` is given. */
const READING = new Set([
  "status",
  "log",
  "diff",
  "show",
  "ls-files",
  "ls-tree",
  "cat-file",
  "rev-parse",
  "rev-list",
  "describe",
  "shortlog",
  "blame",
]);

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
  "-v",
  "--verify",
]);
/** Flags after which positional words are patterns or commits, not names to create. */
const BRANCH_LIST_MODE = new Set([
  "-l",
  "--list",
  "--contains",
  "--no-contains",
  "--merged",
  "--no-merged",
  "--points-at",
]);
const TAG_LIST_MODE = new Set([...BRANCH_LIST_MODE, "-v", "--verify"]);
/** Long flags whose value may come as the next word. */
const VALUE_FLAGS = new Set(["--sort", "--format", "--points-at"]);

function flagName(a: string): string {
  const eq = a.indexOf("=");
  return eq === -1 ? a : a.slice(0, eq);
}

/** Listing form of `git branch` / `git tag`: only listing flags; names only in list mode. */
function isListing(
  args: readonly string[],
  allowed: ReadonlySet<string>,
  listModeFlags: ReadonlySet<string>,
): boolean {
  let listMode = false;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith("-")) {
      positional.push(a);
      continue;
    }
    const name = flagName(a);
    const isNumbered = /^-n\d*$/.test(a) && allowed === TAG_LIST_FLAGS;
    if (!allowed.has(name) && !isNumbered) return false;
    if (listModeFlags.has(name)) listMode = true;
    if (VALUE_FLAGS.has(name) && !a.includes("=")) i++;
  }
  return positional.length === 0 || listMode;
}

function isRemoteListing(args: readonly string[]): boolean {
  const rest = args.filter((a) => a !== "-v" && a !== "--verbose");
  if (rest.length === 0) return true;
  if (rest[0] === "show") return rest.slice(1).every((a) => a === "-n" || !a.startsWith("-"));
  if (rest[0] === "get-url")
    return rest.slice(1).every((a) => ["--push", "--all"].includes(a) || !a.startsWith("-"));
  return false;
}

function isConfigRead(args: readonly string[]): boolean {
  const first = args[0];
  if (!first || !["--get", "--get-all", "--get-regexp", "--list", "-l"].includes(first)) return false;
  const writers = [
    "--add",
    "--unset",
    "--unset-all",
    "--replace-all",
    "--edit",
    "-e",
    "--rename-section",
    "--remove-section",
  ];
  return !args.some((a) => writers.includes(flagName(a)));
}

/** Is `git <args>` read-only? `args` are literal values (unknown words make the caller say no). */
export function isReadOnlyGit(args: readonly string[]): boolean {
  let i = 0;
  // Harmless global options before the subcommand.
  while (args[i] === "--no-pager" || args[i] === "-C") i += args[i] === "-C" ? 2 : 1;
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === undefined) return false;
  if (READING.has(sub)) return !rest.some((a) => flagName(a) === "--output");
  switch (sub) {
    case "grep":
      return !rest.some((a) => /^-[^-]*O/.test(a) || flagName(a) === "--open-files-in-pager");
    case "reflog":
      return !["expire", "delete", "drop"].includes(rest[0] ?? "");
    case "branch":
      return isListing(rest, BRANCH_LIST_FLAGS, BRANCH_LIST_MODE);
    case "tag":
      return isListing(rest, TAG_LIST_FLAGS, TAG_LIST_MODE);
    case "remote":
      return isRemoteListing(rest);
    case "config":
      return isConfigRead(rest);
    default:
      return false;
  }
}
