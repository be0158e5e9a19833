/**
 * Following `cd` through a line (`cd /etc && touch passwd` touches /etc/passwd), so relative
 * targets resolve where they really land; an unknowable directory becomes null.
 */
import { normalizePath } from "../paths.js";
import type { SimpleCommand } from "./simple-commands.js";

const CD_OPTIONS = new Set(["-L", "-P", "-e", "-@"]);

function nextCwd(cmd: SimpleCommand, cwd: string | null, home: string): string | null {
  // In a pipeline, in the background or before `||`, a cd may or may not take effect.
  if (cmd.inPipeline || cmd.nextOp === "||" || cmd.nextOp === "&") return null;
  const args = cmd.args.filter((a) => a.value === null || !CD_OPTIONS.has(a.value));
  if (args.length === 0) return home;
  const target = args[0]?.value ?? null;
  if (target === null || target === "-" || args.length > 1) return null;
  if (cwd === null && !target.startsWith("/")) return null;
  return normalizePath(target, cwd ?? "/", home);
}

/** Sets `cwd` on every command: the session cwd, changed by each top-level `cd`. */
export function trackCwd(commands: readonly SimpleCommand[], sessionCwd: string, home: string): void {
  let cwd: string | null = sessionCwd;
  for (const cmd of commands) {
    cmd.cwd = cwd;
    if (cmd.depth !== 0) continue;
    if (cmd.name === "cd" && cmd.wrappers.length === 0) cwd = nextCwd(cmd, cwd, home);
    else if (cmd.name === "pushd" || cmd.name === "popd") cwd = null;
  }
}
