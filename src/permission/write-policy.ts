/**
 * The permission faces of `Write` and `Edit` (docs/permission.md#file-tools): a safety ASK on dangerous
 * paths, ALLOW inside the working directories in ACCEPT_EDITS, PASSTHROUGH otherwise.
 */
import { matchFileGlob } from "./file-glob.js";
import { fileDirSuggestions, stringField } from "./file-input.js";
import {
  DEFAULT_DANGEROUS_LISTS,
  extendDangerousLists,
  isDangerousPath,
  isInWorkingDirectory,
} from "./paths.js";
import type { PermissionSubject, ToolDecision } from "./types.js";

/** Per-instance additions to the default dangerous lists. */
export interface FileEditPolicyOptions {
  additionalDangerousFiles?: readonly string[];
  additionalDangerousDirectories?: readonly string[];
}

/** The words each tool uses in its messages. */
const WORDS = {
  Write: { operation: "Write operation", gerund: "writing" },
  Edit: { operation: "Edit operation", gerund: "editing" },
} as const;

function editingPolicy(name: keyof typeof WORDS, opts?: FileEditPolicyOptions): PermissionSubject {
  const lists = extendDangerousLists(DEFAULT_DANGEROUS_LISTS, opts);
  const words = WORDS[name];
  const decide = (behavior: ToolDecision["behavior"], message: string, reason: string | null = null) => ({
    behavior,
    message,
    reason,
    bypassImmune: behavior === "ask",
  });
  return {
    name,
    checkPermissions: (input, ctx) => {
      const p = stringField(input, "file_path");
      if (p === "") return decide("passthrough", "No file path provided");
      if (isDangerousPath(p, ctx.cwd, ctx.home, lists)) {
        return decide(
          "ask",
          `Permission required: ${words.operation} on sensitive file ${p}`,
          "Safety check: dangerous file or directory",
        );
      }
      if (ctx.mode === "accept_edits" && isInWorkingDirectory(p, ctx)) {
        return decide(
          "allow",
          `Permission granted for ${words.gerund} ${p} (accept edits mode - in working directory)`,
          "File is in working directory and not a dangerous path",
        );
      }
      return decide("passthrough", "");
    },
    checkReadOnly: () => false,
    matchRule: (content, input, ctx) =>
      matchFileGlob(content, stringField(input, "file_path"), ctx.cwd, ctx.home),
    generateSuggestions: (input) => fileDirSuggestions(name, stringField(input, "file_path")),
  };
}

/** Builds the PermissionSubject for the Write tool. */
export function writePolicy(opts?: FileEditPolicyOptions): PermissionSubject {
  return editingPolicy("Write", opts);
}

/** Builds the PermissionSubject for the Edit tool. */
export function editPolicy(opts?: FileEditPolicyOptions): PermissionSubject {
  return editingPolicy("Edit", opts);
}
