/**
 * Lexical path policy (permission.md §3, §4, §10.12): home expansion, normalisation, the
 * dangerous-file/-directory test and working-directory containment. Pure: no filesystem access.
 */
import * as posix from "node:path/posix";
import type { PermissionContext } from "./types.js";

/** The dangerous basenames and directory segments a Write/Edit/Bash target must not touch. */
export interface DangerousLists {
  files: readonly string[];
  directories: readonly string[];
}

/** The reference's default dangerous file names (§4), compared with the basename. */
export const DEFAULT_DANGEROUS_FILES: readonly string[] = [
  ".gitconfig",
  ".gitmodules",
  ".bashrc",
  ".bash_profile",
  ".zshrc",
  ".zprofile",
  ".profile",
  ".ssh/config",
  ".ssh/authorized_keys",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".env",
  ".envrc",
  ".env.local",
  ".env.development",
  ".env.development.local",
  ".env.test",
  ".env.test.local",
  ".env.staging",
  ".env.production",
  ".env.production.local",
];

/** The reference's default dangerous directory names (§4), compared with every path segment. */
export const DEFAULT_DANGEROUS_DIRECTORIES: readonly string[] = [".git", ".vscode", ".idea", ".ssh"];

/** Both default lists together. */
export const DEFAULT_DANGEROUS_LISTS: DangerousLists = {
  files: DEFAULT_DANGEROUS_FILES,
  directories: DEFAULT_DANGEROUS_DIRECTORIES,
};

/** Lists extended per tool instance: additionalDangerousFiles / additionalDangerousDirectories. */
export function extendDangerousLists(
  base: DangerousLists,
  extra?: {
    additionalDangerousFiles?: readonly string[];
    additionalDangerousDirectories?: readonly string[];
  },
): DangerousLists {
  if (!extra) return base;
  return {
    files: [...base.files, ...(extra.additionalDangerousFiles ?? [])],
    directories: [...base.directories, ...(extra.additionalDangerousDirectories ?? [])],
  };
}

const HOME_PREFIX = /^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/;

/** Expands a leading `~`, `$HOME` or `${HOME}` (alone or followed by `/`) to `home`. */
export function expandHome(p: string, home: string): string {
  return p.replace(HOME_PREFIX, () => home);
}

/** expandHome, then make absolute against cwd and collapse `.`, `..` and repeated slashes (lexical POSIX). */
export function normalizePath(p: string, cwd: string, home: string): string {
  const base = posix.resolve("/", expandHome(cwd, home));
  return posix.resolve(base, expandHome(p, home));
}

function segmentsOf(p: string): string[] {
  return p
    .toLowerCase()
    .split("/")
    .filter((s) => s !== "");
}

/** True when `needle` occurs as consecutive elements of `hay`, optionally only at its end. */
function containsRun(hay: string[], needle: string[], atEnd: boolean): boolean {
  if (needle.length === 0 || needle.length > hay.length) return false;
  const first = atEnd ? hay.length - needle.length : 0;
  for (let i = first; i <= hay.length - needle.length; i++) {
    if (needle.every((n, j) => hay[i + j] === n)) return true;
  }
  return false;
}

/**
 * §4: the basename equals a dangerous file name, or any segment equals a dangerous directory
 * (both case-insensitive). Multi-segment entries (`.ssh/config`) match as a run of segments,
 * so tenant additions like `config/secrets.yml` work; the defaults behave exactly as §4.
 */
export function isDangerousPath(p: string, cwd: string, home: string, lists: DangerousLists): boolean {
  const segments = segmentsOf(normalizePath(p, cwd, home));
  const split = splitLists(lists);
  for (const f of split.files) if (containsRun(segments, f, true)) return true;
  for (const d of split.directories) if (containsRun(segments, d, false)) return true;
  return false;
}

/** The list entries already split into lower-case segments (derived from the lists alone). */
interface SplitLists {
  source: DangerousLists;
  filesRef: readonly string[];
  directoriesRef: readonly string[];
  filesLength: number;
  directoriesLength: number;
  files: string[][];
  directories: string[][];
}

const splitCache = new WeakMap<DangerousLists, SplitLists>();

function splitLists(lists: DangerousLists): SplitLists {
  const hit = splitCache.get(lists);
  if (
    hit !== undefined &&
    hit.filesRef === lists.files &&
    hit.directoriesRef === lists.directories &&
    hit.filesLength === lists.files.length &&
    hit.directoriesLength === lists.directories.length
  ) {
    return hit;
  }
  const split: SplitLists = {
    source: lists,
    filesRef: lists.files,
    directoriesRef: lists.directories,
    filesLength: lists.files.length,
    directoriesLength: lists.directories.length,
    files: lists.files.map(segmentsOf),
    directories: lists.directories.map(segmentsOf),
  };
  splitCache.set(lists, split);
  return split;
}

/** §3 + §10.12: inside cwd or any working directory (equal or below); `/` contains every path; lexical. */
export function isInWorkingDirectory(
  p: string,
  ctx: Pick<PermissionContext, "cwd" | "home" | "workingDirectories">,
): boolean {
  const target = normalizePath(p, ctx.cwd, ctx.home);
  return [ctx.cwd, ...ctx.workingDirectories].some((d) => {
    const dir = normalizePath(d, ctx.cwd, ctx.home);
    return dir === "/" || target === dir || target.startsWith(`${dir}/`);
  });
}
