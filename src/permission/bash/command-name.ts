/**
 * Finding the real command of a simple command (docs/permission.md#stricter-paths-are-seen-through-quotes):
 * skip assignments and the wrappers `sudo env command nice nohup time xargs` (and a few more that run their
 * argument), with their options, and take the basename (`/bin/rm` is `rm`).
 */
import type { Word } from "./words.js";

/**
 * Wrappers that run the rest of their arguments as a command: the short options taking a value
 * (attached or next word), and every long option, those taking a value marked `=` (abbreviations
 * resolve against the whole list, as getopt_long does).
 */
const WRAPPERS: Record<string, { short: string; long: readonly string[] }> = {
  sudo: {
    short: "ugphCDrtUTR",
    long: [
      "user=",
      "group=",
      "host=",
      "prompt=",
      "chdir=",
      "role=",
      "type=",
      "close-from=",
      "chroot=",
      "command-timeout=",
      "other-user=",
      "preserve-env",
      "askpass",
      "background",
      "bell",
      "edit",
      "help",
      "set-home",
      "login",
      "remove-timestamp",
      "reset-timestamp",
      "non-interactive",
      "preserve-groups",
      "stdin",
      "shell",
      "version",
      "validate",
      "list",
    ],
  },
  doas: { short: "uC", long: [] },
  env: {
    short: "uCS",
    long: [
      "unset=",
      "chdir=",
      "split-string=",
      "ignore-environment",
      "null",
      "debug",
      "list-signal-handling",
      "block-signal",
      "default-signal",
      "ignore-signal",
      "help",
      "version",
    ],
  },
  command: { short: "", long: [] },
  builtin: { short: "", long: [] },
  exec: { short: "a", long: [] },
  nice: { short: "n", long: ["adjustment=", "help", "version"] },
  nohup: { short: "", long: ["help", "version"] },
  time: {
    short: "fo",
    long: ["format=", "output=", "append", "portability", "quiet", "verbose", "help", "version"],
  },
  timeout: {
    short: "sk",
    long: ["signal=", "kill-after=", "preserve-status", "foreground", "verbose", "help", "version"],
  },
  stdbuf: { short: "ioe", long: ["input=", "output=", "error=", "help", "version"] },
  xargs: {
    short: "adEILnPs",
    long: [
      "arg-file=",
      "delimiter=",
      "max-args=",
      "max-procs=",
      "max-chars=",
      "process-slot-var=",
      "eof",
      "replace",
      "max-lines",
      "null",
      "open-tty",
      "interactive",
      "no-run-if-empty",
      "show-limits",
      "verbose",
      "exit",
      "help",
      "version",
    ],
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

/** The long option `written` names (`--s` is `--split-string`), with its `=` mark; null when unknown or ambiguous. */
function longOption(longs: readonly string[], written: string): string | null {
  let found: string | null = null;
  for (const l of longs) {
    const name = l.endsWith("=") ? l.slice(0, -1) : l;
    if (name === written) return l;
    if (!name.startsWith(written)) continue;
    if (found !== null) return null;
    found = l;
  }
  return found;
}

/** A wrapper option that hides a whole command line in one word (`env -S 'cmd args'`). */
function hidesCommand(wrapper: string, option: string): boolean {
  return wrapper === "env" && (option === "-S" || option === "split-string=");
}

/** How many words the option `opt` uses (1 or 2), or 0 when it hides a command line. */
function optionWords(wrapper: string, opt: string): number {
  const spec = WRAPPERS[wrapper];
  if (!spec) return 1;
  if (opt.startsWith("--")) {
    const eq = opt.indexOf("=");
    const long = longOption(spec.long, opt.slice(2, eq === -1 ? undefined : eq));
    // Unknown or ambiguous: the wrapper refuses it; keep naming the rest for deny rules.
    if (long === null) return 1;
    if (hidesCommand(wrapper, long)) return 0;
    return long.endsWith("=") && eq === -1 ? 2 : 1;
  }
  // A short group: the first option taking a value takes the rest of the word, or the next one.
  for (let j = 1; j < opt.length; j++) {
    const c = opt[j] as string;
    if (!spec.short.includes(c)) continue;
    if (hidesCommand(wrapper, `-${c}`)) return 0;
    return j === opt.length - 1 ? 2 : 1;
  }
  return 1;
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
        const used = optionWords(base, a);
        // `env -vS 'cmd args'` hides a whole command line in one word: give up on naming it.
        if (used === 0) return out;
        out.wrapperOptions.push(a);
        i += used;
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
