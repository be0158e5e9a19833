/**
 * Wildcard matching in O(text × pattern) steps, for every glob and rule wildcard that meets an
 * agent's input: a backtracking regex for `*a*a*a*b` takes exponential or high-polynomial time on
 * a non-matching text, and this process has one thread for every tenant (attack23a).
 */

/** Matches any run of elements, the empty run included. */
export const STAR = Symbol("wildcard-star");

/** A pattern: stars and single-element tests, in order. */
export type Wildcard<T> = ReadonlyArray<T | typeof STAR>;

/**
 * Does `pattern` match elements `0..length-1` whole? `one(p, i)` tests element `i` against the
 * single-element pattern `p`. Greedy, retrying only from the last star: a star that matched
 * more never needs an earlier star to match differently, so this is exact.
 */
export function wildcardMatch<T>(
  pattern: Wildcard<T>,
  length: number,
  one: (p: T, i: number) => boolean,
): boolean {
  let p = 0;
  let i = 0;
  let starAt = -1;
  let starFrom = 0;
  while (i < length) {
    const el = pattern[p];
    if (el === STAR) {
      starAt = p++;
      starFrom = i;
    } else if (p < pattern.length && one(el as T, i)) {
      p++;
      i++;
    } else if (starAt >= 0) {
      p = starAt + 1;
      i = ++starFrom;
    } else return false;
  }
  while (pattern[p] === STAR) p++;
  return p === pattern.length;
}
