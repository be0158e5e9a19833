/**
 * The permission faces of the built-in tools (Bash, Read, Write, Edit, Glob, Grep), by name.
 */
import { bashPolicy } from "./bash/policy.js";
import { readPolicy } from "./read-policy.js";
import { globPolicy, grepPolicy } from "./search-policy.js";
import type { PermissionSubject } from "./types.js";
import { editPolicy, type FileEditPolicyOptions, writePolicy } from "./write-policy.js";

/** Options shared by the tools that check dangerous paths (Bash, Write, Edit). */
export type BuiltinPolicyOptions = FileEditPolicyOptions;

/** A fresh map from built-in tool name to its PermissionSubject. */
export function builtinSubjects(opts?: BuiltinPolicyOptions): Map<string, PermissionSubject> {
  const subjects = [
    bashPolicy(opts),
    readPolicy(),
    writePolicy(opts),
    editPolicy(opts),
    globPolicy(),
    grepPolicy(),
  ];
  return new Map(subjects.map((s) => [s.name, s]));
}
