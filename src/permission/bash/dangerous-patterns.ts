/**
 * Dangerous patterns, judged per simple command: `rm` with recursive and force flags in any spelling,
 * `sudo rm`, `dd`/`mkfs`/`fdisk`/`format` as the command name, `chmod 777`, `chown -R`, `kill -9`, and
 * redirects into `/dev/` devices (docs/permission.md#stricter-dangerous-patterns-are-judged-per-command).
 */
import type { BashAnalysis } from "./analysis.js";
import { flagWords, hasFlag } from "./flags.js";
import type { Redirect, SimpleCommand } from "./simple-commands.js";

/** The pattern names, in the reference's order (the first that matches is reported). */
export const DANGEROUS_PATTERNS = [
  "rm -rf",
  "sudo rm",
  "dd",
  "mkfs",
  "fdisk",
  "format",
  "chmod 777",
  "chmod -R 777",
  "chown -R",
  "kill -9",
  "> /dev/",
] as const;

type Pattern = (typeof DANGEROUS_PATTERNS)[number];

const SAFE_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);
const KILL_SIGNALS = new Set(["-9", "-KILL", "-SIGKILL", "-s9", "-sKILL", "-sSIGKILL"]);

function isRecursive(flags: string[]): boolean {
  return hasFlag(flags, "rR", "recursive");
}

function chmod777(cmd: SimpleCommand): boolean {
  return cmd.name === "chmod" && cmd.args.some((a) => a.value === "777" || a.value === "0777");
}

function killsHard(cmd: SimpleCommand): boolean {
  if (cmd.name !== "kill" && cmd.name !== "pkill" && cmd.name !== "killall") return false;
  const values = cmd.args.map((a) => a.value ?? "");
  return values.some(
    (v, i) =>
      KILL_SIGNALS.has(v) ||
      ((v === "-s" || v === "-n" || v === "--signal") && /^(9|(SIG)?KILL)$/.test(values[i + 1] ?? "")),
  );
}

function writesDevice(r: Redirect): boolean {
  const t = r.target?.value;
  if (!r.op.includes(">") || t == null) return false;
  return t.startsWith("/dev/") && !SAFE_DEVICES.has(t);
}

/** Which patterns were seen, by their index in DANGEROUS_PATTERNS. */
class Found {
  first: number = DANGEROUS_PATTERNS.length;
  add(p: Pattern): void {
    this.first = Math.min(this.first, DANGEROUS_PATTERNS.indexOf(p));
  }
}

/** The patterns one simple command matches (flags are read only for the commands that need them). */
function patternsOf(c: SimpleCommand, found: Found): void {
  const name = c.name;
  if (name === "rm") {
    const f = flagWords(c.args);
    if (isRecursive(f) && hasFlag(f, "f", "force")) found.add("rm -rf");
    if (c.wrappers.includes("sudo")) found.add("sudo rm");
  } else if (name === "dd" || name === "mkfs" || name === "fdisk" || name === "format") found.add(name);
  else if (name?.startsWith("mkfs.")) found.add("mkfs");
  else if (name === "chmod" && chmod777(c))
    found.add(isRecursive(flagWords(c.args)) ? "chmod -R 777" : "chmod 777");
  else if (name === "chown" && isRecursive(flagWords(c.args))) found.add("chown -R");
  else if (killsHard(c)) found.add("kill -9");
  if (c.redirects.length > 0 && c.redirects.some(writesDevice)) found.add("> /dev/");
}

/** The first dangerous pattern (in the reference's order) found in any simple command, or null. */
export function findDangerousPattern(a: BashAnalysis): string | null {
  const found = new Found();
  for (const c of a.commands) patternsOf(c, found);
  if (a.looseRedirects.length > 0 && a.looseRedirects.some(writesDevice)) found.add("> /dev/");
  return (DANGEROUS_PATTERNS as readonly string[])[found.first] ?? null;
}
