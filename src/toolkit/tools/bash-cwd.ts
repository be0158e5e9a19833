/**
 * Keeping Bash's working directory between calls (Toolshed §16.4): the command is prefixed with
 * an EXIT trap that writes the final `pwd -P` to a private per-call file, read back afterwards.
 */
import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import type { ToolRunContext } from "../run-context.js";

/** Used when the home path is not plain enough to put in a trap unquoted. */
const FALLBACK_PREFIX = "/tmp/.toolshed-cwd-";

/** A wrapped script and the file its final directory lands in. */
export interface CwdTracking {
  script: string;
  cwdFile: string;
}

/**
 * Prefixes the command on the same line, so bash's line numbers in error messages stay the
 * user's. Bash calls of a session never overlap, so one file in the sandbox user's home serves
 * every call (no sweeping). A command that replaces the shell (`exec`) or resets the trap keeps
 * the old cwd.
 */
export function trackCwd(command: string, home: string): CwdTracking {
  const cwdFile = /^[A-Za-z0-9._/-]+$/.test(home)
    ? posix.join(home, ".toolshed-cwd")
    : `${FALLBACK_PREFIX}${randomUUID()}`;
  return { script: `trap 'pwd -P > ${cwdFile} 2>/dev/null' EXIT; ${command}`, cwdFile };
}

/** Reads the recorded directory and reports it through `ctx.setCwd` when it changed. */
export async function adoptFinalCwd(ctx: ToolRunContext, cwdFile: string): Promise<string | undefined> {
  let recorded: string;
  try {
    recorded = (await ctx.sandbox.readFile(cwdFile, { maxBytes: 8192 })).data.toString("utf8").trim();
  } catch {
    return undefined;
  }
  if (!posix.isAbsolute(recorded) || recorded.includes("\n") || recorded === ctx.cwd) return undefined;
  await ctx.setCwd(recorded);
  return recorded;
}
