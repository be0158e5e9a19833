/**
 * The six built-in tool instances in the reference order (Bash, Read, Write, Edit, Glob, Grep),
 * each with its permission face from `src/permission`.
 */
import type { FileEditPolicyOptions } from "../permission/write-policy.js";
import type { ToolBase } from "./tool-base.js";
import { BashTool } from "./tools/bash.js";
import { EditTool } from "./tools/edit.js";
import { GlobTool } from "./tools/glob.js";
import { GrepTool } from "./tools/grep.js";
import { ReadTool } from "./tools/read.js";
import { WriteTool } from "./tools/write.js";

/** Extra dangerous names for Bash, Write and Edit (their policies and the symlink re-check). */
export type BuiltinToolsOptions = FileEditPolicyOptions;

/** Fresh instances of the six built-ins. */
export function createBuiltinTools(opts: BuiltinToolsOptions = {}): ToolBase[] {
  return [
    new BashTool(opts),
    new ReadTool(),
    new WriteTool(opts),
    new EditTool(opts),
    new GlobTool(),
    new GrepTool(),
  ];
}
