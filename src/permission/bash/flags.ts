/** Reading command-line flags the way GNU tools do: short groups, long names and their prefixes. */
import type { Word } from "./words.js";

/** The literal flag words of `args`, up to `--` (unknown words are left out). */
export function flagWords(args: readonly Word[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    if (a.value === "--") break;
    if (a.value?.startsWith("-") && a.value.length > 1) out.push(a.value);
  }
  return out;
}

/** Does a short group (`-rf`) contain `ch`, or a long flag abbreviate `long` (`--rec` for `--recursive`)? */
export function hasFlag(flags: readonly string[], chars: string, long: string | null, minLong = 3): boolean {
  return flags.some((f) => {
    if (f.startsWith("--")) {
      const name = f.slice(2).split("=")[0] ?? "";
      return long !== null && name.length >= minLong - 2 && long.startsWith(name) && name.length > 0;
    }
    return [...f.slice(1)].some((c) => chars.includes(c));
  });
}
