/**
 * Finding the real command of a simple command (permission.md §10.6): skip assignments and the
 * wrappers `sudo env command nice nohup time xargs` (and a few more that run their argument),
 * with their options, and take the basename (`/bin/rm` is `rm`).
 */
import type { Word } from "./words.js";

/** Wrappers that run the rest of their arguments as a command, with their options taking a value. */
const WRAPPERS: Record<string, { short: string; long: readonly string[] }> = {
  sudo: {
    short: "ugphCDrtUT",
    long: ["--user", "--group", "--host", "--prompt", "--chdir", "--role", "--type"],
  },
  doas: { short: "uC", long: [] },
  env: { short: "uC", long: ["--unset", "--chdir"] },
  command: { short: "", long: [] },
  builtin: { short: "", long: [] },
  exec: { short: "a", long: [] },
  nice: { short: "n", long: ["--adjustment"] },
  nohup: { short: "", long: [] },
  time: { short: "fo", long: ["--format", "--output"] },
  timeout: { short: "sk", long: ["--signal", "--kill-after"] },
  stdbuf: { short: "ioe", long: ["--input", "--output", "--error"] },
  xargs: {
    short: "adEILnPs",
    long: ["--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars"],
  },
};

/** WRAPPERS' own keys, for a quick membership test. */
const WRAPPER_NAMES: ReadonlySet<string> = new Set(Object.keys(WRAPPERS));

/** The resolved command: its name, its own arguments, and what was skipped to find it. */
export interface ResolvedName {
  /** Basename of the command; null when it cannot be known statically. */
  name: string | null;
  /** The command word as written, after the wrappers (quotes removed). */
  nameWord: Word | null;
  args: Word[];
  wrappers: string[];
  /** Options given to wrappers (`time -o f` writes a file). */
  wrapperOptions: string[];
  /** Names assigned through `env NAME=value`. */
  envAssignments: string[];
}

/** The last path segment: `/bin/rm` is `rm`. */
export function basename(s: string): string {
  const i = s.lastIndexOf("/");
  return i === -1 ? s : s.slice(i + 1);
}

function takesValue(wrapper: string, opt: string): boolean {
  const spec = WRAPPERS[wrapper];
  if (!spec) return false;
  if (opt.startsWith("--")) return !opt.includes("=") && spec.long.includes(opt);
  return opt.length === 2 && spec.short.includes(opt[1] as string);
}

/** Skips wrappers and their options in `words` (the command word first). */
export function resolveName(words: readonly Word[]): ResolvedName {
  const out: ResolvedName = {
    name: null,
    nameWord: null,
    args: [],
    wrappers: [],
    wrapperOptions: [],
    envAssignments: [],
  };
  let i = 0;
  while (i < words.length) {
    const w = words[i] as Word;
    if (w.value === null) return out;
    const base = basename(w.value);
    if (!WRAPPER_NAMES.has(base) || w.value === "") {
      out.name = base;
      out.nameWord = w;
      out.args = words.slice(i + 1);
      return out;
    }
    out.wrappers.push(base);
    i++;
    let durationSeen = base !== "timeout";
    while (i < words.length) {
      const a = (words[i] as Word).value;
      if (a === null) return out;
      if (a === "--") {
        i++;
        break;
      }
      if (a.startsWith("-") && a.length > 1) {
        // `env -S 'cmd args'` hides a whole command line in one word: give up on naming it.
        if (base === "env" && (a.startsWith("-S") || a.startsWith("--split-string"))) return out;
        out.wrapperOptions.push(a);
        i += takesValue(base, a) ? 2 : 1;
        continue;
      }
      if (base === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) {
        out.envAssignments.push(a.slice(0, a.indexOf("=")));
        i++;
        continue;
      }
      if (!durationSeen) {
        durationSeen = true;
        i++;
        continue;
      }
      break;
    }
  }
  return out;
}
