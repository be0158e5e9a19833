/**
 * Dangerous command patterns judged per simple command (permission.md §5.5, §10.5): `rm` with
 * recursive and force flags in any spelling, `sudo rm`, `dd`/`mkfs`/`fdisk`/`format` as the
 * command name, `chmod 777`, `chown -R`, `kill -9`, and redirects into `/dev/` devices.
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

const TESTS: Record<Pattern, (cmd: SimpleCommand) => boolean> = {
  "rm -rf": (c) => {
    const f = flagWords(c.args);
    return c.name === "rm" && isRecursive(f) && hasFlag(f, "f", "force");
  },
  "sudo rm": (c) => c.name === "rm" && c.wrappers.includes("sudo"),
  dd: (c) => c.name === "dd",
  mkfs: (c) => c.name !== null && (c.name === "mkfs" || c.name.startsWith("mkfs.")),
  fdisk: (c) => c.name === "fdisk",
  format: (c) => c.name === "format",
  "chmod 777": (c) => chmod777(c) && !isRecursive(flagWords(c.args)),
  "chmod -R 777": (c) => chmod777(c) && isRecursive(flagWords(c.args)),
  "chown -R": (c) => c.name === "chown" && isRecursive(flagWords(c.args)),
  "kill -9": killsHard,
  "> /dev/": (c) => c.redirects.some(writesDevice),
};

/** The first dangerous pattern found in any simple command (pattern order first), or null. */
export function findDangerousPattern(a: BashAnalysis): string | null {
  for (const pattern of DANGEROUS_PATTERNS) {
    const test = TESTS[pattern];
    if (a.commands.some(test)) return pattern;
    if (pattern === "> /dev/" && a.looseRedirects.some(writesDevice)) return pattern;
  }
  return null;
}
