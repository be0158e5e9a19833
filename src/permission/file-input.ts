/**
 * Shared pieces of the file tools' permission faces (docs/permission.md#file-tools): reading path fields from
 * the input and building the directory-level suggestions (docs/permission.md#file-tool-suggestions).
 */
import { normalizePath } from "./paths.js";
import type { PermissionContext, PermissionRule, ToolInput } from "./types.js";

/** The string value of an input field, or "" when it is missing or not a string. */
export function stringField(input: ToolInput, key: string): string {
  const value = input[key];
  return typeof value === "string" ? value : "";
}

/** Python's `os.path.dirname`: everything before the last `/`, trailing slashes dropped unless all slashes. */
function pythonDirname(p: string): string {
  const head = p.slice(0, p.lastIndexOf("/") + 1);
  return /^\/+$/.test(head) ? head : head.replace(/\/+$/, "");
}

function suggestedRule(toolName: string, dir: string): PermissionRule {
  const content = dir === "" ? "**" : `${dir.replace(/\/+$/, "")}/**`;
  return { toolName, ruleContent: content, behavior: "allow", source: "suggested" };
}

/** Read/Write/Edit suggestion: `<Tool>(<dirname(p)>/**)`, `<Tool>(**)` for a bare name, `[]` for no path. */
export function fileDirSuggestions(toolName: string, filePath: string): PermissionRule[] {
  if (filePath === "") return [];
  return [suggestedRule(toolName, pythonDirname(filePath))];
}

/**
 * Glob/Grep suggestion: `<Tool>(<abspath(path or cwd)>/**)`. Home is expanded too, so the suggestion
 * matches the call under file-rule normalisation.
 */
export function searchDirSuggestions(
  toolName: string,
  path: string,
  ctx: PermissionContext,
): PermissionRule[] {
  const dir = normalizePath(path === "" ? ctx.cwd : path, ctx.cwd, ctx.home);
  return [suggestedRule(toolName, dir)];
}
