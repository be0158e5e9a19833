/**
 * Wrappers a read-only command may run under (`env`, `nice`, `timeout`, `command`, `builtin`,
 * `time`, `xargs`), each read by its own option rules: `env -vS'…'`, `xargs -tI cat sh` are
 * seen for what they run. Never `sudo`, `nohup`, `exec`, `stdbuf`; never `env -i`/`-u` nor a
 * running `command -p`, which would reach a command past the reader's PATH or environment.
 */
import { isSafePrefix } from "./env-prefix.js";
import { optionSpec, type ParsedArgs, parseArgs, type SpecText } from "./options.js";
import { cannotBeOption, isExact } from "./word-shape.js";
import type { Word } from "./words.js";

/** What follows a wrapper's options: how many operand words it takes itself, or null to refuse. */
type After = (operands: readonly Word[], p: ParsedArgs) => number | null;

interface Wrapper {
  spec: ReturnType<typeof optionSpec>;
  after: After;
}

const NONE: After = () => 0;

/** `env NAME=value …`: only names from the prefix allowlist. */
const envAssignments: After = (operands) => {
  let n = 0;
  for (const w of operands) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(w.value ?? "");
    if (m === null) break;
    if (!cannotBeOption(w) || !isSafePrefix(m[1] as string, (w.value as string).slice(m[0].length)))
      return null;
    n++;
  }
  return n;
};

/** `timeout DURATION cmd`. */
const duration: After = (operands) => (operands[0] !== undefined && isExact(operands[0]) ? 1 : null);

function wrapper(t: SpecText, after: After = NONE): Wrapper {
  return { spec: optionSpec(t), after };
}

/** Shell builtins `builtin` may name that are readers. */
const READING_BUILTINS = new Set(["cd", "echo", "printf", "pwd", "type", "true", "false"]);

const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map([
  [
    "env",
    wrapper(
      {
        // Not -i/--ignore-environment nor -u/--unset: the reader's git is found through PATH
        // and configured through GIT_CONFIG_* (src/sandbox/executor/user-env.mjs).
        flags: "0v",
        valued: "C",
        long: "null debug list-signal-handling",
        longValued: "chdir",
        cluster: true,
      },
      envAssignments,
    ),
  ],
  ["nice", wrapper({ valued: "n", longValued: "adjustment", numeric: true })],
  [
    "timeout",
    wrapper(
      {
        flags: "v",
        valued: "ks",
        long: "preserve-status foreground verbose",
        longValued: "kill-after signal",
      },
      duration,
    ),
  ],
  ["command", wrapper({ flags: "pvV", cluster: true })],
  ["builtin", wrapper({}, (operands) => (READING_BUILTINS.has(operands[0]?.value ?? "") ? 0 : null))],
  ["time", wrapper({ flags: "p" })],
  [
    "xargs",
    wrapper({
      flags: "0prtx",
      valued: "adEILnPs",
      attached: "eil",
      long: "null open-tty interactive no-run-if-empty show-limits verbose exit",
      longValued: "arg-file delimiter max-args max-procs max-chars",
      longOptional: "eof replace max-lines",
      cluster: true,
    }),
  ],
]);

/** Where the wrapped command starts, and how it may be checked. */
export interface Unwrapped {
  /** Index in the words of the command word; words.length when there is none. */
  index: number;
  /** Under `xargs`: more arguments arrive on stdin, so only commands taking any words qualify. */
  viaXargs: boolean;
  /** Nothing from `index` on is run: `command -v`/`-V` only looks names up; a bare `env` prints. */
  lookupOnly: boolean;
}

/** Is `name` a system binary or a bare name (`./ls` could be anything)? */
export function isTrustedName(written: string): boolean {
  return !written.includes("/") || /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/.test(written);
}

/** The last path segment of a command word. */
function base(written: string): string {
  return written.slice(written.lastIndexOf("/") + 1);
}

/** Skips the read-only wrappers at the start of `words`; null when a wrapper is used in a way that is not. */
export function unwrapReadOnly(words: readonly Word[]): Unwrapped | null {
  let i = 0;
  let viaXargs = false;
  while (i < words.length) {
    const w = words[i] as Word;
    if (!isExact(w) || !isTrustedName(w.value as string)) return null;
    const name = base(w.value as string);
    const spec = WRAPPERS.get(name);
    if (spec === undefined) return { index: i, viaXargs, lookupOnly: false };
    // Words from stdin could land among the wrapper's own options.
    if (viaXargs) return null;
    const rest = words.slice(i + 1);
    const p = parseArgs(rest, spec.spec, true);
    if (p === null) return null;
    if (name === "command" && p.options.some((o) => o.name !== "-p")) {
      return { index: i + 1 + p.end, viaXargs, lookupOnly: true };
    }
    // `command -p cmd` runs cmd found on a default PATH, past the reader's own git.
    if (name === "command" && p.options.length > 0) return null;
    const operands = rest.slice(p.end);
    const taken = spec.after(operands, p);
    if (taken === null) return null;
    if (name === "xargs") viaXargs = true;
    i += 1 + p.end + taken;
  }
  return { index: words.length, viaXargs, lookupOnly: true };
}
