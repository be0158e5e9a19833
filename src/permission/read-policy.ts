/**
 * The permission face of `Read` (docs/permission.md#file-tools): read-only, always PASSTHROUGH, no
 * dangerous-path check (on purpose: tenants add deny rules such as `Read(**\/.env)`).
 */

import { matchFileGlob } from "./file-glob.js";
import { fileDirSuggestions, stringField } from "./file-input.js";
import type { PermissionSubject } from "./types.js";

/** Builds the PermissionSubject for the Read tool. */
export function readPolicy(): PermissionSubject {
  return {
    name: "Read",
    checkPermissions: () => ({
      behavior: "passthrough",
      message: "File reading is read-only.",
      reason: null,
      bypassImmune: false,
    }),
    checkReadOnly: () => true,
    matchRule: (content, input, ctx) =>
      matchFileGlob(content, stringField(input, "file_path"), ctx.cwd, ctx.home),
    generateSuggestions: (input) => fileDirSuggestions("Read", stringField(input, "file_path")),
  };
}
