/**
 * What bash's brace and pathname expansion can make of one word, read from its source text:
 * only unquoted, unescaped `*`, `?`, `[` glob and only an unquoted `{…,…}` / `{a..b}` expands.
 */
import type { Word } from "./words.js";

/** The word has an unquoted glob character: bash may replace it by file names. */
export const GLOB = 1;
/** The word has an unquoted brace expansion: bash turns it into several words. */
export const BRACE = 2;
/** A glob character comes before any literal character, so the first file name is unknown. */
export const LEADING_GLOB = 4;

/** Characters without which a word can have no shape at all (the common, fast case). */
const SPECIAL = /[*?[{(]/;

/**
 * Skips a quoted run whose opening quote is at `i`; returns the index after it and whether it
 * held text. Inside `"…"` and `$'…'` (`escapes`) a backslash escapes the next character.
 */
function skipQuoted(raw: string, i: number, escapes: boolean): [number, boolean] {
  const q = raw[i];
  let j = i + 1;
  while (j < raw.length && raw[j] !== q) j += escapes && raw[j] === "\\" ? 2 : 1;
  return [j + 1, j > i + 1];
}

/** The GLOB / BRACE / LEADING_GLOB bits of a word's source text. */
export function wordShape(raw: string): number {
  if (!SPECIAL.test(raw)) return 0;
  let shape = 0;
  let emitted = false;
  // Brace groups open at this point: whether each has seen a top-level `,` or `..`.
  const open: boolean[] = [];
  for (let i = 0; i < raw.length; ) {
    const c = raw[i] as string;
    if (c === "\\") {
      // A line continuation vanishes; any other escaped character is a literal.
      if (raw[i + 1] !== "\n") emitted = true;
      i += 2;
      continue;
    }
    if (c === "'" || c === '"' || (c === "$" && (raw[i + 1] === "'" || raw[i + 1] === '"'))) {
      const at = c === "$" ? i + 1 : i;
      const [next, text] = skipQuoted(raw, at, c !== "'");
      i = next;
      emitted ||= text;
      continue;
    }
    if (c === "$" && raw[i + 1] === "{") {
      // `${…}` is a parameter expansion, never a brace group (the word is not literal anyway).
      i += 2;
      continue;
    }
    i++;
    // `{`, `,` and `}` of a brace group vanish in the expansion: they are no first literal.
    if (c === "*" || c === "?" || c === "[" || c === "(") shape |= GLOB | (emitted ? 0 : LEADING_GLOB);
    else if (c === "{") {
      open.push(false);
      continue;
    } else if (c === "," && open.length > 0) {
      open[open.length - 1] = true;
      continue;
    } else if (c === "}" && open.length > 0) {
      if (open.pop()) shape |= BRACE;
      continue;
    } else if (c === "." && raw[i] === "." && open.length > 0) open[open.length - 1] = true;
    emitted = true;
  }
  return shape;
}

/** The shape of a word, computed once per word object. */
export function shapeOf(w: Word): number {
  w.shape ??= wordShape(w.raw);
  return w.shape;
}

/**
 * A word bash passes on exactly as the analysis read it: a known value, no brace expansion and
 * no glob. `$HOME` counts as known (the session's home).
 */
export function isExact(w: Word): boolean {
  return w.value !== null && shapeOf(w) === 0;
}

/**
 * A word that cannot be an option, however it expands: known, not starting with `-`, no brace
 * expansion, and no glob before its first literal character.
 */
export function cannotBeOption(w: Word): boolean {
  if (w.value === null || w.value.charCodeAt(0) === 45) return false;
  return (shapeOf(w) & (BRACE | LEADING_GLOB)) === 0;
}

/** Exactly what it says, or a glob that cannot become an option: a word that can hide nothing. */
export function isInert(w: Word): boolean {
  return isExact(w) || cannotBeOption(w);
}
