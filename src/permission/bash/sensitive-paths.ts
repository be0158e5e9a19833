/**
 * Layer 4 (docs/permission.md#bash-layers): the targets of a line that are dangerous files or lie in
 * dangerous directories. A cheap segment pre-filter skips the full test for ordinary paths.
 */
import {
  couldBeDangerousPath,
  couldStartDangerousRun,
  type DangerousLists,
  isDangerousPath,
} from "../paths.js";
import type { PermissionContext } from "../types.js";
import type { BashAnalysis } from "./analysis.js";
import { expandBraces } from "./brace-expansion.js";
import { extractTargets, type Target } from "./target-paths.js";
import { BRACE, GLOB } from "./word-shape.js";

const filterCache = new WeakMap<DangerousLists, RegExp>();

/** A path can only be dangerous if some segment equals a segment of some list entry. */
function segmentFilter(lists: DangerousLists): RegExp {
  let re = filterCache.get(lists);
  if (!re) {
    const segments = [...lists.files, ...lists.directories]
      .flatMap((e) => e.split("/"))
      .filter((s) => s !== "");
    const alternatives = segments.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
    re = alternatives === "" ? /$^/ : new RegExp(`(?:^|/)(?:${alternatives})(?:/|$)`, "i");
    filterCache.set(lists, re);
  }
  return re;
}

/**
 * The commands that put a source under a directory operand: there a path that starts a dangerous
 * run of segments (`~/.config` of `.config/git`) is one too (every operand: sources included, to
 * stay simple; copying *from* `~/.config` asks as well).
 */
const PLACING: ReadonlySet<string> = new Set(["cp", "mv", "ln", "install"]);

/** The targets (as written) that touch dangerous files or directories, in order. */
export function findSensitivePaths(a: BashAnalysis, ctx: PermissionContext, lists: DangerousLists): string[] {
  const filter = segmentFilter(lists);
  const contextMatters = filter.test(ctx.cwd) || filter.test(ctx.home);
  const hits: string[] = [];
  for (const t of extractTargets(a, ctx.cwd)) {
    const path = t.value ?? t.lit;
    const cwd = t.cwd ?? ctx.cwd;
    // A plain path without a dangerous segment, in a context without one, cannot be.
    if (t.shape === 0 && !contextMatters && !filter.test(path) && !filter.test(cwd)) continue;
    if (touchesDangerous(t, path, cwd, ctx.home, lists)) hits.push(t.lit);
  }
  return hits;
}

/**
 * The target is a dangerous path, or a placing command's operand that a copy or move into would
 * make one; a brace or glob target when any word it may become could be (too many: assume so).
 */
function touchesDangerous(
  t: Target,
  path: string,
  cwd: string,
  home: string,
  lists: DangerousLists,
): boolean {
  const glob = (t.shape & GLOB) !== 0;
  const dangerous = glob ? couldBeDangerousPath : isDangerousPath;
  const placing = PLACING.has(t.source);
  const test = (w: string) =>
    dangerous(w, cwd, home, lists) || (placing && couldStartDangerousRun(w, cwd, home, lists, glob));
  if ((t.shape & BRACE) === 0) return test(path);
  const words = expandBraces(path);
  return words === null || [path, ...words].some(test);
}
