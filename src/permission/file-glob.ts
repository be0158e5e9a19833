/**
 * File rule matching (docs/permission.md#file-rule-matching): `**` spans directories, `*` and `?` stay within
 * a segment, `[...]`/`[!...]` are classes; a pattern without `/` matches the basename at any depth; a
 * relative pattern with `/` is anchored at the session cwd; paths are normalised first.
 */
import * as posix from "node:path/posix";
import { expandHome, normalizePath } from "./paths.js";
import { STAR, type Wildcard, wildcardMatch } from "./wildcard.js";

/** One character of a segment: a literal, any character (`?`) or a class. */
type CharTest = string | RegExp | null;

/** A compiled file pattern: per segment a wildcard over characters, `**` a star over segments. */
export interface CompiledFileGlob {
  /** For a basename-only pattern, one segment. */
  segments: Wildcard<Wildcard<CharTest>>;
  basenameOnly: boolean;
}

const CACHE_LIMIT = 512;
const cache = new Map<string, CompiledFileGlob>();

/** Translates one `[...]` class starting at `start`; an unclosed `[` is a literal (as fnmatch). */
function translateClass(seg: string, start: number): { test: RegExp; end: number } | undefined {
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
  // One class against one character: linear, whatever the tenant wrote.
  return { test: new RegExp(negate ? `^[^/${body}]$` : `^[${body}]$`), end: i };
}

/** One path segment (no `/` inside) as a wildcard over its characters. */
function translateSegment(seg: string): Wildcard<CharTest> {
  const out: (CharTest | typeof STAR)[] = [];
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i] as string;
    if (ch === "*") {
      if (out[out.length - 1] !== STAR) out.push(STAR);
    } else if (ch === "?") out.push(null);
    else if (ch === "[") {
      const cls = translateClass(seg, i);
      if (cls) {
        out.push(cls.test);
        i = cls.end;
      } else out.push(ch);
    } else out.push(ch);
  }
  return out;
}

/**
 * Compiles an absolute pattern; `**` is any run of segments, so a trailing `/**` also matches
 * the directory itself and a suggested `Grep(/workspace/**)` covers a search of `/workspace`.
 */
function translateAbsolute(pattern: string): Wildcard<Wildcard<CharTest>> {
  if (pattern === "/") return [];
  return pattern
    .split("/")
    .slice(1)
    .map((seg) => (seg === "**" ? STAR : translateSegment(seg)));
}

function matchSegment(pattern: Wildcard<CharTest>, seg: string): boolean {
  return wildcardMatch(pattern, seg.length, (c, i) => {
    const ch = seg[i] as string;
    return c === null || (typeof c === "string" ? c === ch : c.test(ch));
  });
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
    compiled = { segments: [translateSegment(expanded)], basenameOnly: true };
  } else {
    // A leading `**/` means "in any directory" (as in gitignore), so `Read(**/.env)` is a
    // deny rule for every .env, not only those under the session directory.
    const anchored =
      posix.isAbsolute(expanded) || expanded.startsWith("**/") ? expanded : `${base(cwd, home)}/${expanded}`;
    const absolute = posix.normalize(anchored.startsWith("/") ? anchored : `/${anchored}`);
    const trimmed = absolute.length > 1 ? absolute.replace(/\/+$/, "") : absolute;
    compiled = { segments: translateAbsolute(trimmed), basenameOnly: false };
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

/** Does a file rule pattern match this path (normalised against cwd/home)? An empty path never matches. */
export function matchFileGlob(pattern: string, path: string, cwd: string, home: string): boolean {
  if (path === "") return false;
  const target = normalizePath(path, cwd, home);
  const { segments, basenameOnly } = compileFileGlob(pattern, cwd, home);
  // A normalised path has no empty segment; `/` has none at all.
  const parts = basenameOnly
    ? [posix.basename(target)]
    : target
        .split("/")
        .slice(1)
        .filter((s) => s !== "");
  return wildcardMatch(segments, parts.length, (seg, i) => matchSegment(seg, parts[i] as string));
}
