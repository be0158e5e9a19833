/**
 * The default permission face for every tool that is not a built-in file tool or Bash
 * (docs/permission.md#other-tools): tool-level suggestions, content rules never match.
 */
import type { PermissionSubject, ToolDecision } from "./types.js";

/** How a tool's own check decides: task tools / reset_tools / Skill and external tools always allow. */
export type GenericPermissionKind = "always_allow" | "function" | "mcp" | "external";

/** What the default subject needs to know about the tool. */
export interface GenericPolicyOptions {
  kind: GenericPermissionKind;
  /** The tool's static read-only flag (MCP: its `readOnlyHint`). */
  readOnly?: boolean;
}

function decision(behavior: ToolDecision["behavior"], message: string): ToolDecision {
  return { behavior, message, reason: null, bypassImmune: false };
}

function ownCheck(name: string, opts: GenericPolicyOptions): ToolDecision {
  switch (opts.kind) {
    case "function":
      return decision("ask", "Custom function tools must be explicitly allowed by the user.");
    case "mcp":
      return opts.readOnly
        ? decision("allow", "This is a read-only MCP tool. Allowing execution.")
        : decision("ask", "MCP tools must be explicitly allowed by the user.");
    default:
      return decision("allow", `${name} is always allowed.`);
  }
}

/** Builds the default PermissionSubject for a tool named `name`. */
export function genericPolicy(name: string, opts: GenericPolicyOptions): PermissionSubject {
  const verdict = ownCheck(name, opts);
  return {
    name,
    checkPermissions: () => verdict,
    checkReadOnly: () => opts.readOnly ?? false,
    matchRule: () => false,
    generateSuggestions: () => [
      { toolName: name, ruleContent: null, behavior: "allow", source: "suggested" },
    ],
  };
}
