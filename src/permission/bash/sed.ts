/**
 * sed constraints (docs/permission.md#stricter-sed-is-read-per-command), per sed simple command: only
 * substitutions and `-n` line prints, no w/e commands, and `-i` never on a dangerous file (the dangerous-path
 * test).
 */
import { type DangerousLists, isDangerousPath } from "../paths.js";
import type { SedCall } from "./command-memo.js";
import type { SimpleCommand } from "./simple-commands.js";

export type { SedCall } from "./command-memo.js";

const ALLOWED_FLAGS = "nEei";
const LONG_FLAGS: Record<string, string> = { "--quiet": "n", "--silent": "n", "--regexp-extended": "E" };
const HARMLESS_LONG = new Set(["--posix", "--sandbox", "--debug"]);

/** Splits sed's arguments (best-effort literal text of each word). */
export function parseSedArgs(args: readonly string[]): SedCall {
  const call: SedCall = {
    flags: new Set(),
    expressions: [],
    files: [],
    suffix: null,
    followsLinks: false,
    error: null,
  };
  let explicit = false;
  const positional: string[] = [];
  let onlyFiles = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (onlyFiles || a === "-" || !a.startsWith("-")) {
      positional.push(a);
      continue;
    }
    if (a === "--") {
      onlyFiles = true;
      continue;
    }
    if (a.startsWith("--")) {
      const [name = "", value] = a.split(/=(.*)/s);
      if (name === "--expression") {
        explicit = true;
        const e = value ?? args[++i];
        if (e !== undefined) call.expressions.push(e);
      } else if (name === "--in-place") {
        call.flags.add("i");
        if (value !== undefined) call.suffix = value;
      } else if (LONG_FLAGS[name]) call.flags.add(LONG_FLAGS[name] as string);
      else if (name === "--follow-symlinks") call.followsLinks = true;
      else if (!HARMLESS_LONG.has(name)) call.error ??= `sed flag ${name} not allowed`;
      continue;
    }
    // A short group: `-n`, `-ne`, `-i.bak` (everything after `i` is the backup suffix).
    for (let j = 1; j < a.length; j++) {
      const c = a[j] as string;
      if (!ALLOWED_FLAGS.includes(c)) {
        call.error ??= `sed flag -${c} not allowed`;
        break;
      }
      call.flags.add(c);
      if (c === "i") {
        if (j + 1 < a.length) call.suffix = a.slice(j + 1);
        break;
      }
      if (c === "e") {
        explicit = true;
        const e = j + 1 < a.length ? a.slice(j + 1) : args[++i];
        if (e !== undefined) call.expressions.push(e);
        break;
      }
    }
  }
  if (explicit) call.files = positional;
  else {
    const [first, ...rest] = positional;
    if (first !== undefined) call.expressions.push(first);
    call.files = rest;
  }
  if (call.error === null && call.expressions.length === 0) call.error = "sed command missing expression";
  return call;
}

/** parseSedArgs of a sed simple command's words, once per analysed command (read-only result). */
export function sedCallOf(cmd: SimpleCommand): SedCall {
  cmd.memo.sed ??= parseSedArgs(cmd.args.map((a) => a.lit));
  return cmd.memo.sed;
}

/** The reference's expression checks, in order; null when the expression is allowed. */
export function checkSedExpression(expr: string, quiet: boolean): string | null {
  if (/\/[wW]\s+\S+/.test(expr) || expr.endsWith("/w") || expr.endsWith("/W")) {
    return "sed write operation (w/W) not allowed";
  }
  if (/\/[eE](\s|$)/.test(expr) || expr.endsWith("/e") || expr.endsWith("/E")) {
    return "sed execute operation (e/E) not allowed";
  }
  if (expr.includes("{") || expr.includes("}")) return "sed curly braces not allowed";
  if (expr.startsWith("!")) return "sed negation (!) not allowed";
  if (expr.includes("#") && !expr.startsWith("s#")) return "sed comments not allowed";
  if (quiet && /^(\d+p|\d+,\d+p)$/.test(expr)) return null;
  if (/^s[/|#]/.test(expr)) {
    const delim = expr[1] as string;
    const parts = expr.slice(2).split(delim);
    if (parts.length >= 2 && (parts.length < 3 || /^[gp\d]*$/.test(parts[2] as string))) return null;
  }
  return `sed expression '${expr}' not in allowlist`;
}

/** The first sed error of one sed simple command (the dangerous-file test for `-i`), or null. */
export function sedError(
  cmd: SimpleCommand,
  cwd: string,
  home: string,
  lists: DangerousLists,
): string | null {
  const call = sedCallOf(cmd);
  if (call.error) return call.error;
  for (const e of call.expressions) {
    const err = checkSedExpression(e, call.flags.has("n"));
    if (err) return err;
  }
  if (call.flags.has("i")) {
    const bad = call.files.find((f) => isDangerousPath(f, cmd.cwd ?? cwd, home, lists));
    if (bad !== undefined) return `sed -i modifying dangerous file: ${bad}`;
  }
  return null;
}

/**
 * Does this sed write anywhere but its files? A backup suffix with `/` or `*` names another
 * path (`-i/tmp/*` writes /tmp/<file>), and `--follow-symlinks` writes through links.
 */
export function sedWritesElsewhere(call: SedCall): boolean {
  if (!call.flags.has("i")) return false;
  return call.followsLinks || (call.suffix !== null && !/^[A-Za-z0-9._~+-]*$/.test(call.suffix));
}
