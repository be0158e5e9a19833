/**
 * The permission faces of `Glob` and `Grep` (docs/permission.md#file-tools): read-only, always PASSTHROUGH,
 * matched on their search directory with the file-rule glob semantics.
 */
import * as posix from "node:path/posix";
import { matchFileGlob } from "./file-glob.js";
import { searchDirSuggestions, stringField } from "./file-input.js";
import type { PermissionSubject, ToolDecision } from "./types.js";

function passthrough(message: string): ToolDecision {
  return { behavior: "passthrough", message, reason: null, bypassImmune: false };
}

/**
 * Builds the PermissionSubject for Glob: a rule matches the `path` when one is given, or the
 * pattern placed under its base directory (the Glob helper ignores a leading `/` in patterns).
 */
export function globPolicy(): PermissionSubject {
  return {
    name: "Glob",
    checkPermissions: () => passthrough("Glob pattern matching is read-only."),
    checkReadOnly: () => true,
    matchRule: (content, input, ctx) => {
      const path = stringField(input, "path");
      if (path !== "" && matchFileGlob(content, path, ctx.cwd, ctx.home)) return true;
      const pattern = stringField(input, "pattern");
      if (pattern === "") return false;
      const underBase = posix.join(path === "" ? ctx.cwd : path, pattern.replace(/^[/\\]+/, ""));
      return matchFileGlob(content, underBase, ctx.cwd, ctx.home);
    },
    generateSuggestions: (input, ctx) => searchDirSuggestions("Glob", stringField(input, "path"), ctx),
  };
}

/** Builds the PermissionSubject for Grep: a rule matches the search path, or the cwd without one. */
export function grepPolicy(): PermissionSubject {
  return {
    name: "Grep",
    checkPermissions: () => passthrough("Grep search is read-only."),
    checkReadOnly: () => true,
    matchRule: (content, input, ctx) =>
      matchFileGlob(content, stringField(input, "path") || ctx.cwd, ctx.cwd, ctx.home),
    generateSuggestions: (input, ctx) => searchDirSuggestions("Grep", stringField(input, "path"), ctx),
  };
}
