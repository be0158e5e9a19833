/**
 * Keeping Bash's working directory between calls: the command is prefixed with an EXIT trap
 * that writes the final `pwd -P` to descriptor 9, which the sandbox opens for the call and reads
 * back into the result (`ExecResult.cwd`). No file is involved, so a read-only call (which cannot
 * write the home) keeps its `cd` too, and nothing is left to sweep.
 */
import { posix } from "node:path";
import { cwdOrWorkspace } from "../../permission/paths.js";
import { type ExecResult, SANDBOX_WORKSPACE } from "../../sandbox/sandbox.js";
import type { ToolRunContext } from "../run-context.js";

/**
 * Prefixes the command on the same line, so bash's line numbers in error messages stay the
 * user's. The command runs in a group with descriptor 9 closed, so nothing it leaves running
 * holds the pipe open (the trap, in the shell itself, still has it). A command that replaces the
 * shell (`exec`) or resets the trap keeps the old cwd. Where the descriptor is not open the
 * redirection fails silently (stderr is redirected first).
 */
export function trackCwd(command: string): string {
  return `trap 'pwd -P 2>/dev/null >&9' EXIT; { ${command}
} 9>&-`;
}

/**
 * Reports the recorded directory through `ctx.setCwd` when it changed. The shell stays only in
 * the workspace or a working directory; a command that ends elsewhere leaves the next one in the
 * workspace (as the reference resets it). The cwd is also where accept_edits lets writes through
 * (docs/permission.md), and a `cd` is read-only: `cd /` must not make the home "inside".
 */
export async function adoptFinalCwd(ctx: ToolRunContext, result: ExecResult): Promise<string | undefined> {
  const recorded = result.cwd?.trim();
  const workspace = ctx.workspace ?? SANDBOX_WORKSPACE;
  if (!recorded) return leaveIfGone(ctx, workspace);
  // The command can write descriptor 9 itself (its own EXIT trap): a control character (a NUL
  // fails every later call, and a Postgres text) keeps the old cwd; a spelling is normalised.
  if (!posix.isAbsolute(recorded) || hasControl(recorded)) return undefined;
  const dir = posix.resolve(recorded);
  const next = cwdOrWorkspace(dir, workspace, ctx);
  if (next === ctx.cwd) return undefined;
  await ctx.setCwd(next);
  return next;
}

/**
 * Nothing recorded: the shell was replaced (`exec`), its trap reset, `pwd -P` failed because the
 * directory was removed under it, or the command never started because the cwd was gone (removed,
 * or a workspace lost with its host). A cwd that no longer exists would fail every later call
 * before it starts, with nothing to move it (attack22c): the next call starts in the workspace.
 * One stat, only on this rare path.
 */
async function leaveIfGone(ctx: ToolRunContext, workspace: string): Promise<string | undefined> {
  if (ctx.cwd === workspace) return undefined;
  const st = await ctx.sandbox.stat(ctx.cwd).catch(() => undefined);
  if (st === undefined || st?.type === "directory") return undefined;
  await ctx.setCwd(workspace);
  return workspace;
}

function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c === 127) return true;
  }
  return false;
}
