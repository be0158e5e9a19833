/**
 * File rule matching (docs/permission.md#file-rule-matching): `**` spans directories, `*` and `?` stay within
 * a segment, `[...]`/`[!...]` are classes; a pattern without `/` matches the basename at any depth; a
 * relative pattern with `/` is anchored at the session cwd; paths are normalised first.
 */
import * as posix from "node:path/posix";
import { expandHome, normalizePath } from "./paths.js";

/** A compiled file pattern: the regex and whether it applies to the basename only. */
export interface CompiledFileGlob {
  regex: RegExp;
  basenameOnly: boolean;
}

const CACHE_LIMIT = 512;
const cache = new Map<string, CompiledFileGlob>();

function escapeRegex(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** Translates one `[...]` class starting at `start`; an unclosed `[` is a literal (as fnmatch). */
function translateClass(seg: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (seg[i] === "!" || seg[i] === "^") {
    negate = true;
    i++;
  }
  const bodyStart = i;
  if (seg[i] === "]") i++; // a leading `]` is a member, as in fnmatch
  while (i < seg.length && seg[i] !== "]") i++;
  if (i >= seg.length) return undefined;
  const body = seg.slice(bodyStart, i).replace(/[\\^\]]/g, (c) => `\\${c}`);
  return { source: negate ? `[^/${body}]` : `[${body}]`, end: i };
}

/** The regex source for one path segment (no `/` inside). */
function translateSegment(seg: string): string {
  let out = "";
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i] as string;
    if (ch === "*") out += "[^/]*";
    else if (ch === "?") out += "[^/]";
    else if (ch === "[") {
      const cls = translateClass(seg, i);
      if (cls) {
        out += cls.source;
        i = cls.end;
      } else out += "\\[";
    } else out += escapeRegex(ch);
  }
  return out;
}

/**
 * Compiles an absolute pattern; a trailing `/**` also matches the directory itself, so a
 * suggested `Grep(/workspace/**)` covers a search of `/workspace`.
 */
function translateAbsolute(pattern: string): string {
  if (pattern === "/") return "/";
  const segments = pattern.split("/").slice(1);
  return segments
    .map((seg, i) => {
      if (seg !== "**") return `/${translateSegment(seg)}`;
      return i === segments.length - 1 ? "(?:/.*)?" : "(?:/[^/]+)*";
    })
    .join("");
}

function base(cwd: string, home: string): string {
  return normalizePath(".", cwd, home);
}

/** Compiles a file rule pattern for a session (cwd, home); results are cached per pattern+cwd+home. */
export function compileFileGlob(pattern: string, cwd: string, home: string): CompiledFileGlob {
  const key = `${pattern}\0${cwd}\0${home}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let compiled: CompiledFileGlob;
  const expanded = expandHome(pattern, home);
  if (!expanded.includes("/")) {
    compiled = { regex: new RegExp(`^${translateSegment(expanded)}$`), basenameOnly: true };
  } else {
    // A leading `**/` means "in any directory" (as in gitignore), so `Read(**/.env)` is a
    // deny rule for every .env, not only those under the session directory.
    const anchored =
      posix.isAbsolute(expanded) || expanded.startsWith("**/") ? expanded : `${base(cwd, home)}/${expanded}`;
    const absolute = posix.normalize(anchored.startsWith("/") ? anchored : `/${anchored}`);
    const trimmed = absolute.length > 1 ? absolute.replace(/\/+$/, "") : absolute;
    compiled = { regex: new RegExp(`^${translateAbsolute(trimmed)}$`), basenameOnly: false };
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

/** Does a file rule pattern match this path (normalised against cwd/home)? An empty path never matches. */
export function matchFileGlob(pattern: string, path: string, cwd: string, home: string): boolean {
  if (path === "") return false;
  const target = normalizePath(path, cwd, home);
  const { regex, basenameOnly } = compileFileGlob(pattern, cwd, home);
  return regex.test(basenameOnly ? posix.basename(target) : target);
}
