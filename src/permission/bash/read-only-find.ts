/**
 * Read-only `find`: starting points, then an expression of known tests and the printing actions
 * only. `-delete`, `-exec`, `-execdir`, `-ok`, `-okdir`, `-fprint`, `-fprint0`, `-fprintf`,
 * `-fls` and every unknown word make it not read-only.
 */
import { cannotBeOption, isExact } from "./word-shape.js";
import type { Word } from "./words.js";

/** Primaries and operators that take no value. */
const NO_VALUE = new Set([
  "(",
  ")",
  "!",
  ",",
  "-not",
  "-a",
  "-and",
  "-o",
  "-or",
  "-empty",
  "-true",
  "-false",
  "-readable",
  "-writable",
  "-executable",
  "-nouser",
  "-nogroup",
  "-prune",
  "-quit",
  "-print",
  "-print0",
  "-ls",
  "-depth",
  "-d",
  "-mount",
  "-xdev",
  "-noleaf",
  "-ignore_readdir_race",
  "-noignore_readdir_race",
  "-daystart",
  "-follow",
  "-warn",
  "-nowarn",
]);

/** Primaries followed by one value word (which may start with `-`: `-mtime -7`). */
const ONE_VALUE = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-wholename",
  "-iwholename",
  "-regex",
  "-iregex",
  "-regextype",
  "-type",
  "-xtype",
  "-size",
  "-perm",
  "-user",
  "-group",
  "-uid",
  "-gid",
  "-mtime",
  "-mmin",
  "-atime",
  "-amin",
  "-ctime",
  "-cmin",
  "-newer",
  "-anewer",
  "-cnewer",
  "-samefile",
  "-inum",
  "-links",
  "-lname",
  "-ilname",
  "-used",
  "-fstype",
  "-maxdepth",
  "-mindepth",
  "-context",
  "-printf",
  "-files0-from",
]);

/** Options before the starting points. */
const LEADING = new Set(["-H", "-L", "-P"]);

/** Does `w` start the expression (find reads these as primaries or operators, never as paths)? */
function startsExpression(v: string): boolean {
  return v.startsWith("-") || v === "(" || v === ")" || v === "!" || v === ",";
}

/** Is `find <args>` read-only? */
export function isReadOnlyFind(args: readonly Word[]): boolean {
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]?.value;
    if (v === undefined || v === null) return false;
    if (LEADING.has(v) || /^-O\d$/.test(v)) continue;
    if (v === "-D") {
      const debug = args[++i];
      if (debug === undefined || !isExact(debug)) return false;
      continue;
    }
    break;
  }
  // Starting points: a glob is fine when it cannot turn into a primary.
  for (; i < args.length; i++) {
    const w = args[i] as Word;
    if (w.value === null || startsExpression(w.value)) break;
    if (!cannotBeOption(w)) return false;
  }
  for (; i < args.length; i++) {
    const w = args[i] as Word;
    if (!isExact(w)) return false;
    const v = w.value as string;
    if (NO_VALUE.has(v)) continue;
    if (!ONE_VALUE.has(v) && !/^-newer[aBcmt][aBcmt]$/.test(v)) return false;
    const value = args[++i];
    if (value === undefined || !(isExact(value) || cannotBeOption(value))) return false;
  }
  return true;
}
