/**
 * Lexical path policy (docs/permission.md#paths-and-working-directories): home expansion, normalisation, the
 * dangerous-file/-directory test and working-directory containment. Pure: no filesystem access.
 */
import * as posix from "node:path/posix";
import type { PermissionContext } from "./types.js";
import { STAR, type Wildcard, wildcardMatch } from "./wildcard.js";

/** The dangerous basenames and directory segments a Write/Edit/Bash target must not touch. */
export interface DangerousLists {
  files: readonly string[];
  directories: readonly string[];
}

/** The reference's default dangerous file names, compared with the basename. */
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

/**
 * The reference's default dangerous directory names, compared with every path segment, and (ours,
 * docs/permission.md#stricter-gits-own-configuration-is-dangerous) git's XDG configuration as a
 * run of segments: `~/.config/git/config` can name programs (core.fsmonitor, core.pager, diff and
 * filter drivers) that a narrowly allowed `git status` would then run, as `~/.gitconfig` can.
 */
export const DEFAULT_DANGEROUS_DIRECTORIES: readonly string[] = [
  ".git",
  ".vscode",
  ".idea",
  ".ssh",
  ".config/git",
];

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
  // Only `~` (126) or `$` (36) can start a home prefix; skip the regex otherwise.
  const c = p.charCodeAt(0);
  if (c !== 126 && c !== 36) return p;
  return p.replace(HOME_PREFIX, () => home);
}

/** expandHome, then make absolute against cwd and collapse `.`, `..` and repeated slashes (lexical POSIX). */
export function normalizePath(p: string, cwd: string, home: string): string {
  const c = expandHome(cwd, home);
  const base = isCleanAbsolute(c) ? c : posix.resolve("/", c);
  const q = expandHome(p, home);
  // Fast paths giving exactly what posix.resolve gives for already-normal input.
  if (q === "") return base;
  if (q.charCodeAt(0) === 47) return isCleanAbsolute(q) ? q : posix.resolve(base, q);
  if (!UNCLEAN.test(q)) return base === "/" ? `/${q}` : `${base}/${q}`;
  return posix.resolve(base, q);
}

/** Something posix.resolve would rewrite: `//`, a trailing `/`, or a `.`/`..` segment. */
const UNCLEAN = /\/\/|\/$|(?:^|\/)\.\.?(?:\/|$)/;

/** Already absolute and normal, so posix.resolve would return it unchanged. */
function isCleanAbsolute(s: string): boolean {
  return s === "/" || (s.charCodeAt(0) === 47 && !UNCLEAN.test(s));
}

function segmentsOf(p: string): string[] {
  const out: string[] = [];
  for (const s of p.toLowerCase().split("/")) if (s !== "") out.push(s);
  return out;
}

/** Does the path segment `seg` stand for the name `name`? (Equality, or a glob match.) */
type SegmentTest = (seg: string, name: string) => boolean;

const equal: SegmentTest = (seg, name) => seg === name;

/** True when `needle` occurs as consecutive elements of `hay`, optionally only at its end. */
function containsRun(hay: string[], needle: string[], atEnd: boolean, same: SegmentTest = equal): boolean {
  if (needle.length === 0 || needle.length > hay.length) return false;
  const first = atEnd ? hay.length - needle.length : 0;
  for (let i = first; i <= hay.length - needle.length; i++) {
    let j = 0;
    while (j < needle.length && same(hay[i + j] as string, needle[j] as string)) j++;
    if (j === needle.length) return true;
  }
  return false;
}

/**
 * The basename equals a dangerous file name, or any segment equals a dangerous directory
 * (both case-insensitive). Multi-segment entries (`.ssh/config`) match as a run of segments,
 * so tenant additions like `config/secrets.yml` work; the defaults behave exactly as the reference's.
 */
export function isDangerousPath(p: string, cwd: string, home: string, lists: DangerousLists): boolean {
  const segments = segmentsOf(normalizePath(p, cwd, home));
  const split = splitLists(lists);
  // Pre-checks, both necessary: a file entry ends with the path's last segment, and a
  // directory entry shares at least one segment with the path.
  const last = segments[segments.length - 1];
  if (last !== undefined && split.fileLast.has(last)) {
    for (const f of split.files) if (containsRun(segments, f, true)) return true;
  }
  for (const s of segments) {
    if (!split.directorySegments.has(s)) continue;
    for (const d of split.directories) if (containsRun(segments, d, false)) return true;
    return false;
  }
  return false;
}

/**
 * The path ends with the start of a dangerous entry of two or more segments (`~/.config` for
 * `.config/git`): a copy or move into it (`cp -r git ~/.config`, `mv -T dir ~/.config`) makes the
 * entry without naming it (attack22c). With `glob`, a segment may be a glob (couldBeDangerousPath's).
 */
export function couldStartDangerousRun(
  p: string,
  cwd: string,
  home: string,
  lists: DangerousLists,
  glob = false,
): boolean {
  const segments = segmentsOf(normalizePath(p, cwd, home));
  const same = glob ? globMatch : equal;
  return splitLists(lists).runStarts.some((start) => containsRun(segments, start, true, same));
}

const GLOB_CHARS = /[*?[]/;
type GlobChar = string | RegExp | null;
/** A compiled glob segment; `"any"` when a class does not compile (it could be anything). */
const globs = new Map<string, Wildcard<GlobChar> | "any">();

/**
 * A glob segment as a wildcard over characters (the name is a list entry, the glob the
 * agent's: linear matching, attack23a). Bash's rules with dotglob off apply in globMatch.
 */
function globSegment(seg: string): Wildcard<GlobChar> | "any" {
  let out = globs.get(seg);
  if (out !== undefined) return out;
  const chars: (GlobChar | typeof STAR)[] = [];
  for (let i = 0; i < seg.length && out === undefined; i++) {
    const c = seg[i] as string;
    const close = c === "[" ? seg.indexOf("]", i + 2) : -1;
    if (c === "*") chars.push(STAR);
    else if (c === "?") chars.push(null);
    else if (close !== -1) {
      const body = seg
        .slice(i + 1, close)
        .replace(/^[!^]/, "^")
        .replace(/\\/g, "\\\\");
      try {
        chars.push(new RegExp(`^[${body}]$`, "i"));
      } catch {
        out = "any";
      }
      i = close;
    } else chars.push(c.toLowerCase());
  }
  out ??= chars;
  if (globs.size > 500) globs.clear();
  globs.set(seg, out);
  return out;
}

const globMatch: SegmentTest = (seg, name) => {
  if (!GLOB_CHARS.test(seg)) return seg === name;
  // Dotglob off: a leading `.` is matched only by a literal `.` (or, to be safe, a bracket).
  if (name.charCodeAt(0) === 46 && seg[0] !== "." && seg[0] !== "[") return false;
  const glob = globSegment(seg);
  if (glob === "any") return true;
  return wildcardMatch(glob, name.length, (c, i) => {
    const ch = name[i] as string;
    return c === null || (typeof c === "string" ? c === ch.toLowerCase() : c.test(ch));
  });
};

/**
 * isDangerousPath for a path whose segments may be globs (`.en[v]`, `.gi?/config`): true when
 * some file the glob could match is dangerous.
 */
export function couldBeDangerousPath(p: string, cwd: string, home: string, lists: DangerousLists): boolean {
  const segments = segmentsOf(normalizePath(p, cwd, home));
  const split = splitLists(lists);
  return (
    split.files.some((f) => containsRun(segments, f, true, globMatch)) ||
    split.directories.some((d) => containsRun(segments, d, false, globMatch))
  );
}

/** The list entries already split into lower-case segments (derived from the lists alone). */
interface SplitLists {
  filesRef: readonly string[];
  directoriesRef: readonly string[];
  filesLength: number;
  directoriesLength: number;
  files: string[][];
  directories: string[][];
  /** The last segment of every file entry. */
  fileLast: Set<string>;
  /** Every segment of every directory entry. */
  directorySegments: Set<string>;
  /** The proper leading runs of every entry of two or more segments (`.config` of `.config/git`). */
  runStarts: string[][];
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
  const files = lists.files.map(segmentsOf);
  const directories = lists.directories.map(segmentsOf);
  const split: SplitLists = {
    filesRef: lists.files,
    directoriesRef: lists.directories,
    filesLength: lists.files.length,
    directoriesLength: lists.directories.length,
    files,
    directories,
    fileLast: new Set(files.flatMap((f) => f.slice(-1))),
    directorySegments: new Set(directories.flat()),
    runStarts: [...directories, ...files].flatMap((e) => e.slice(1).map((_, k) => e.slice(0, k + 1))),
  };
  splitCache.set(lists, split);
  return split;
}

/**
 * Where a session's shell may stay: `dir` while it lies in `workspace` or a working directory,
 * else `workspace` (a cwd outside would widen what accept_edits lets through).
 */
export function cwdOrWorkspace(
  dir: string,
  workspace: string,
  ctx: Pick<PermissionContext, "home" | "workingDirectories">,
): string {
  const roots = { cwd: workspace, home: ctx.home, workingDirectories: ctx.workingDirectories };
  return isInWorkingDirectory(dir, roots) ? dir : workspace;
}

/** Inside cwd or any working directory (equal or below); `/` contains every path; lexical. */
export function isInWorkingDirectory(
  p: string,
  ctx: Pick<PermissionContext, "cwd" | "home" | "workingDirectories">,
): boolean {
  const target = normalizePath(p, ctx.cwd, ctx.home);
  return [ctx.cwd, ...ctx.workingDirectories].some((d) =>
    isWithin(target, normalizePath(d, ctx.cwd, ctx.home)),
  );
}

/** `path` is `dir` or below it (both normal and absolute); `/` contains every path. */
export function isWithin(path: string, dir: string): boolean {
  return dir === "/" || path === dir || path.startsWith(`${dir}/`);
}
