/**
 * Following `cd` through a line, so relative targets resolve where they land. Only a plain
 * `cd DIR`/`pushd DIR` is followed, along `&&`; any other spelling (`command cd`, `time cd`,
 * `CDPATH=… cd`, `cd -`, `popd`, a glob, `cd x; …`) makes the directory unknown (null).
 */
import { normalizePath } from "../paths.js";
import type { SimpleCommand } from "./simple-commands.js";
import { isExact } from "./word-shape.js";

const CD_OPTIONS = new Set(["-L", "-P", "-e", "-@"]);

function changesDirectory(cmd: SimpleCommand): boolean {
  return cmd.name === "cd" || cmd.name === "pushd" || cmd.name === "popd";
}

/** Where a `cd`/`pushd`/`popd` lands, or null when that cannot be known exactly. */
function landing(cmd: SimpleCommand, cwd: string | null, home: string): string | null {
  // Wrappers may run it elsewhere (`env cd`); prefixes may steer it (`CDPATH=/tmp cd x`).
  if (cmd.name === "popd" || cmd.wrappers.length > 0 || cmd.prefixAssignments.length > 0) return null;
  if (cmd.odd || cmd.inPipeline) return null;
  let i = 0;
  while (i < cmd.args.length && CD_OPTIONS.has(cmd.args[i]?.value ?? "")) i++;
  if (cmd.args[i]?.value === "--") i++;
  const rest = cmd.args.slice(i);
  // `pushd` alone swaps the top two directories: unknown.
  if (rest.length === 0) return cmd.name === "cd" ? home : null;
  const target = rest[0];
  if (rest.length > 1 || target === undefined || !isExact(target)) return null;
  const v = target.value as string;
  // `cd -` is $OLDPWD; `pushd +1` rotates the stack; an empty name is bash's no-op.
  if (v === "" || v.startsWith("-") || v.startsWith("+")) return null;
  if (cwd === null && !v.startsWith("/")) return null;
  return normalizePath(v, cwd ?? "/", home);
}

/**
 * Sets `cwd` on every command: the session cwd until a `cd`, then where it lands for as long
 * as the line goes on with `&&` (after `;` or `||` the `cd` may have failed: unknown).
 */
export function trackCwd(commands: readonly SimpleCommand[], sessionCwd: string, home: string): void {
  // Nested code (`eval cd …`) is listed after the whole line: its effect cannot be placed.
  const nestedMove = commands.some((c) => c.depth !== 0 && changesDirectory(c));
  let cwd: string | null = nestedMove ? null : sessionCwd;
  let moved = false;
  for (const cmd of commands) {
    cmd.cwd = cwd;
    if (cmd.depth !== 0) {
      cmd.cwd = nestedMove ? null : cwd;
      continue;
    }
    if (changesDirectory(cmd)) {
      cwd = landing(cmd, cwd, home);
      moved = true;
    }
    if (moved && cmd.nextOp !== "&&") cwd = null;
  }
}
