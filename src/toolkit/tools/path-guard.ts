/**
 * The run-time symlink re-check of Write and Edit: the policy judged the path lexically; here the
 * sandbox resolves the real target, and a link that leads somewhere the policy would not have allowed
 * is refused before anything is written (docs/permission.md#stricter-symlinks-are-checked-in-the-sandbox).
 */
import {
  type DangerousLists,
  isDangerousPath,
  isInWorkingDirectory,
  isWithin,
  normalizePath,
} from "../../permission/paths.js";
import type { ToolRunContext } from "../run-context.js";

/** The resolved target, or the error text when the tool must refuse. */
export type GuardResult = { ok: true; realPath: string } | { ok: false; message: string };

/**
 * Resolves `filePath` in the sandbox and refuses a dangerous real target reached through a link
 * or, when ACCEPT_EDITS auto-allowed the call, a real target outside the working directories.
 */
export async function guardWriteTarget(
  ctx: ToolRunContext,
  filePath: string,
  lists: DangerousLists,
  verb: "write" | "edit",
): Promise<GuardResult> {
  const realPath = await ctx.sandbox.realPath(filePath);
  // A dangling link does not resolve, and writing to it would create its unchecked target.
  if ((await ctx.sandbox.stat(realPath))?.type === "symlink") {
    return {
      ok: false,
      message: `Error: ${filePath} is a symbolic link whose target does not exist; refusing to ${verb} through it.`,
    };
  }
  const lexical = normalizePath(filePath, ctx.cwd, ctx.home);
  // A path that is dangerous as written was already judged (and maybe approved) by the policy.
  if (realPath !== lexical && isDangerousPath(realPath, ctx.cwd, ctx.home, lists)) {
    return {
      ok: false,
      message: `Error: ${filePath} resolves to ${realPath}, which is a sensitive file or directory; refusing to ${verb} through a symlink.`,
    };
  }
  if (ctx.autoAllowedEdit && !(await insideWorkingDirectories(ctx, realPath))) {
    return {
      ok: false,
      message: `Error: ${filePath} resolves to ${realPath}, which is outside the working directories; refusing to ${verb} it without explicit permission.`,
    };
  }
  return { ok: true, realPath };
}

/**
 * Working directories are resolved in the sandbox too, so a linked workdir still contains its
 * files, but only where its real path stays inside the roots: a working directory (or cwd) that is
 * a link into the home would otherwise carry auto-allowed writes there.
 */
async function insideWorkingDirectories(ctx: ToolRunContext, realPath: string): Promise<boolean> {
  const lexical = { cwd: ctx.cwd, home: ctx.home, workingDirectories: ctx.workingDirectories };
  if (isInWorkingDirectory(realPath, lexical)) return true;
  const dirs = [ctx.cwd, ...ctx.workingDirectories];
  const resolved = await Promise.all(
    dirs.map((d) => ctx.sandbox.realPath(normalizePath(d, ctx.cwd, ctx.home))),
  );
  return resolved.some(
    (dir) => isWithin(realPath, dir) && ctx.workingDirectoryRoots.some((root) => isWithin(dir, root)),
  );
}
