/**
 * Reading a command's arguments by its own option rules: short options alone or grouped, with
 * values attached or in the next word, `--long`, `--long=value`, `--long value`, GNU/git
 * abbreviations of long options, `-NUM`, and `--`. Anything not in the table is a failure.
 */
import { BRACE, cannotBeOption, isExact, shapeOf } from "./word-shape.js";
import type { Word } from "./words.js";

/**
 * How a long option takes its value: `value` is `--name=value` or `--name value`; `optional`
 * only `--name=value` (alone it has none).
 */
export type Takes = "nothing" | "value" | "optional";

/** One command's option rules. */
export interface OptionSpec {
  /** Short options without a value. */
  flags: string;
  /** Short options with a value: the rest of the word, or else the next word. */
  valued: string;
  /** Short options whose value, if any, is the rest of the word (`-i.bak`, `-M50%`). */
  attached: string;
  /** Long options by name (without `--`). */
  long: ReadonlyMap<string, Takes>;
  /** Short options may be grouped in one word (`-la`, `-vt/tmp`). */
  cluster: boolean;
  /** `-NUM` is an option (`head -20`, `git log -5`). */
  numeric: boolean;
  /** Unambiguous prefixes of long options count (getopt_long, git); `long` must then be complete. */
  abbrev: boolean;
  /** Refuses an option value (`--format=%G?` runs gpg); null when every value is fine. */
  checkValue: ((option: string, value: string) => boolean) | null;
}

/** The compact form a spec is written in: long names separated by spaces. */
export interface SpecText {
  flags?: string;
  valued?: string;
  attached?: string;
  long?: string;
  longValued?: string;
  longOptional?: string;
  cluster?: boolean;
  numeric?: boolean;
  abbrev?: boolean;
  checkValue?: (option: string, value: string) => boolean;
}

function names(list: string | undefined): string[] {
  return list ? list.split(/\s+/).filter((n) => n !== "") : [];
}

/** Builds an OptionSpec from its compact text form. */
export function optionSpec(t: SpecText): OptionSpec {
  const long = new Map<string, Takes>();
  for (const n of names(t.long)) long.set(n, "nothing");
  for (const n of names(t.longValued)) long.set(n, "value");
  for (const n of names(t.longOptional)) long.set(n, "optional");
  return {
    flags: t.flags ?? "",
    valued: t.valued ?? "",
    attached: t.attached ?? "",
    long,
    cluster: t.cluster ?? false,
    numeric: t.numeric ?? false,
    abbrev: t.abbrev ?? false,
    checkValue: t.checkValue ?? null,
  };
}

/** Two specs' options together (later ones win on a clash). */
export function mergeSpecs(base: SpecText, ...more: SpecText[]): SpecText {
  const out: SpecText = { ...base };
  for (const m of more) {
    out.flags = (out.flags ?? "") + (m.flags ?? "");
    out.valued = (out.valued ?? "") + (m.valued ?? "");
    out.attached = (out.attached ?? "") + (m.attached ?? "");
    out.long = `${out.long ?? ""} ${m.long ?? ""}`;
    out.longValued = `${out.longValued ?? ""} ${m.longValued ?? ""}`;
    out.longOptional = `${out.longOptional ?? ""} ${m.longOptional ?? ""}`;
  }
  return out;
}

/** One option as the command will see it: `-x` or the full `--name`, and its value if any. */
export interface ParsedOption {
  name: string;
  value: string | null;
  /** The word the value was read from (the option's own word when attached). */
  from: Word;
}

/** A command's arguments read by its spec. */
export interface ParsedArgs {
  options: ParsedOption[];
  positionals: Word[];
  /** Where reading stopped: the first operand when asked to stop there, else args.length. */
  end: number;
}

/** The long option `name` resolves to (exact, or a unique prefix when abbreviations count), or null. */
export function resolveLong(name: string, spec: OptionSpec): string | null {
  if (spec.long.has(name)) return name;
  if (!spec.abbrev || name === "") return null;
  let found: string | null = null;
  for (const full of spec.long.keys()) {
    if (!full.startsWith(name)) continue;
    // Ambiguous: the command refuses it, and so do we.
    if (found !== null) return null;
    found = full;
  }
  return found;
}

/**
 * A value taken from the next word. One that starts with `-` is refused: if the command read
 * the option as taking no value, that word would be an option we never checked.
 */
function nextValue(args: readonly Word[], i: number): string | null {
  const w = args[i];
  if (w === undefined || !cannotBeOption(w)) return null;
  return w.value;
}

/** Records one option read (`out` null: only checking), unless the spec refuses its value. */
function record(
  out: ParsedOption[] | null,
  spec: OptionSpec,
  name: string,
  value: string | null,
  from: Word,
): boolean {
  if (value !== null && spec.checkValue !== null && !spec.checkValue(name, value)) return false;
  out?.push({ name, value, from });
  return true;
}

/** Reads `--name[=value]` at args[i]; returns the index of the last word used, or -1. */
function readLong(
  args: readonly Word[],
  i: number,
  body: string,
  spec: OptionSpec,
  out: ParsedOption[] | null,
): number {
  const eq = body.indexOf("=");
  const name = resolveLong(eq === -1 ? body : body.slice(0, eq), spec);
  if (name === null) return -1;
  const takes = spec.long.get(name) as Takes;
  const w = args[i] as Word;
  if (eq !== -1) {
    if (takes === "nothing") return -1;
    return record(out, spec, `--${name}`, body.slice(eq + 1), w) ? i : -1;
  }
  if (takes !== "value") return record(out, spec, `--${name}`, null, w) ? i : -1;
  const value = nextValue(args, i + 1);
  if (value === null) return -1;
  return record(out, spec, `--${name}`, value, args[i + 1] as Word) ? i + 1 : -1;
}

/** Reads a short option word at args[i]; returns the index of the last word used, or -1. */
function readShort(
  args: readonly Word[],
  i: number,
  v: string,
  spec: OptionSpec,
  out: ParsedOption[] | null,
): number {
  const w = args[i] as Word;
  if (spec.numeric && /^-\d+$/.test(v)) return record(out, spec, "-NUM", v.slice(1), w) ? i : -1;
  for (let j = 1; j < v.length; j++) {
    if (j > 1 && !spec.cluster) return -1;
    const c = v[j] as string;
    if (spec.valued.includes(c)) {
      if (j + 1 < v.length) return record(out, spec, `-${c}`, v.slice(j + 1), w) ? i : -1;
      const value = nextValue(args, i + 1);
      if (value === null) return -1;
      return record(out, spec, `-${c}`, value, args[i + 1] as Word) ? i + 1 : -1;
    }
    if (spec.attached.includes(c)) {
      return record(out, spec, `-${c}`, j + 1 < v.length ? v.slice(j + 1) : null, w) ? i : -1;
    }
    if (!spec.flags.includes(c) || !record(out, spec, `-${c}`, null, w)) return -1;
  }
  return i;
}

/**
 * Walks args[from..] by `spec`, recording into `options`/`positionals` when given; returns
 * where it stopped (the first operand with `stopAtOperand`, else args.length), or -1.
 */
function walk(
  args: readonly Word[],
  spec: OptionSpec,
  from: number,
  stopAtOperand: boolean,
  options: ParsedOption[] | null,
  positionals: Word[] | null,
): number {
  let operandsOnly = false;
  for (let i = from; i < args.length; i++) {
    const w = args[i] as Word;
    const v = w.value;
    if (v === null) return -1;
    if (operandsOnly || v.length < 2 || v.charCodeAt(0) !== 45) {
      if (stopAtOperand) return i;
      // After `--` a glob cannot become an option; before it, it must start with a literal.
      if (!(operandsOnly ? (shapeOf(w) & BRACE) === 0 : isExact(w) || cannotBeOption(w))) return -1;
      positionals?.push(w);
      continue;
    }
    if (shapeOf(w) !== 0) return -1;
    if (v === "--") {
      if (stopAtOperand) return i + 1;
      operandsOnly = true;
      continue;
    }
    i =
      v.charCodeAt(1) === 45
        ? readLong(args, i, v.slice(2), spec, options)
        : readShort(args, i, v, spec, options);
    if (i < 0) return -1;
  }
  return args.length;
}

/**
 * Reads `args` by `spec`; null when any word is not literal, could expand to an option, or is
 * an option the spec does not know. Options may follow operands (GNU permutation) unless
 * `stopAtOperand` (wrappers: their first operand is the command, left unchecked).
 */
export function parseArgs(args: readonly Word[], spec: OptionSpec, stopAtOperand = false): ParsedArgs | null {
  const options: ParsedOption[] = [];
  const positionals: Word[] = [];
  const end = walk(args, spec, 0, stopAtOperand, options, positionals);
  return end < 0 ? null : { options, positionals, end };
}

/** parseArgs(args.slice(from), spec) !== null, without building the reading. */
export function argsAreKnown(args: readonly Word[], spec: OptionSpec, from = 0): boolean {
  return walk(args, spec, from, false, null, null) >= 0;
}

/** A best-effort reading for finding paths: unknown words are kept, never a reason to stop. */
export interface ScannedArgs {
  options: ParsedOption[];
  /** Operands, non-literal ones included (their value is null). */
  operands: Word[];
  /** Some option is unknown, ambiguous, or lacks its value: the reading may be wrong. */
  unsure: boolean;
}

/**
 * Reads `args` by `spec` without giving up: a non-literal word is an operand (it may really be
 * an option: callers treat its null value as unknown), an unknown option sets `unsure`.
 */
export function scanArgs(args: readonly Word[], spec: OptionSpec): ScannedArgs {
  const out: ScannedArgs = { options: [], operands: [], unsure: false };
  let operandsOnly = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i] as Word;
    const v = w.value;
    if (v === "--" && !operandsOnly) {
      operandsOnly = true;
      continue;
    }
    if (operandsOnly || v === null || v.length < 2 || v.charCodeAt(0) !== 45) {
      out.operands.push(w);
      continue;
    }
    // A glob or brace option word is nothing we can read: keep it as a (shaped) operand.
    if (shapeOf(w) !== 0) {
      out.unsure = true;
      out.operands.push(w);
      continue;
    }
    const next =
      v.charCodeAt(1) === 45
        ? readLong(args, i, v.slice(2), spec, out.options)
        : readShort(args, i, v, spec, out.options);
    if (next < 0) out.unsure = true;
    else i = next;
  }
  return out;
}
