/** Shared fixtures for the Bash policy tests: a session context and rule builders. */
import { bashPolicy } from "../../../src/permission/bash/policy.js";
import type { PermissionContext, PermissionMode, PermissionRule } from "../../../src/permission/types.js";

export const CWD = "/workspace";
export const HOME = "/home/agent";

/** A context in `mode` with optional rule contents for Bash. */
export function bashCtx(
  mode: PermissionMode = "default",
  rules: { allow?: string[]; deny?: string[]; ask?: string[] } = {},
  extra: Partial<PermissionContext> = {},
): PermissionContext {
  const make = (behavior: PermissionRule["behavior"], contents: string[] = []): PermissionRule[] =>
    contents.map((c) => ({ toolName: "Bash", ruleContent: c, behavior, source: "test" }));
  return {
    mode,
    cwd: CWD,
    home: HOME,
    workingDirectories: [],
    rules: { allow: make("allow", rules.allow), deny: make("deny", rules.deny), ask: make("ask", rules.ask) },
    ...extra,
  };
}

/** A fresh Bash subject with the default lists. */
export const bash = bashPolicy();

/** checkPermissions for one command in `mode`. */
export function check(command: unknown, mode: PermissionMode = "default") {
  return bash.checkPermissions({ command }, bashCtx(mode));
}
