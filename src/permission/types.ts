/**
 * The vocabulary of the permission system (docs/permission.md#vocabulary), shared by the engine, the
 * built-in tools' checks and every caller. Pure data: no I/O, no clock.
 */

import { z } from "zod";

export type PermissionBehavior = "allow" | "deny" | "ask" | "passthrough";

export type PermissionMode = "default" | "accept_edits" | "explore" | "bypass" | "dont_ask";

export const PERMISSION_MODES: readonly PermissionMode[] = [
  "default",
  "accept_edits",
  "explore",
  "bypass",
  "dont_ask",
];

/** The modes as a schema, declared once: the API's `mode` fields, the policy check, the stored session. */
export const PermissionModeSchema = z.enum(
  PERMISSION_MODES as readonly [PermissionMode, ...PermissionMode[]],
);

/** Who settled a call: a rule, the tool's own check, the mode's default, or a human approval. */
export type DecidedBy = "rule" | "tool" | "mode" | "approval";

/** A rule: `Tool` (content null), `Tool()` (content ""), `Tool(content)`. */
export interface PermissionRule {
  toolName: string;
  /** null or "" match every call of the tool. */
  ruleContent: string | null;
  behavior: "allow" | "deny" | "ask";
  /** Free-form provenance: "tenant", "session", "suggested", "approval", "test", ... */
  source: string;
}

/** What a tool's own check returns (may be passthrough). */
export interface ToolDecision {
  behavior: PermissionBehavior;
  message: string;
  reason: string | null;
  bypassImmune: boolean;
}

/** The engine's final answer: never passthrough. */
export interface PermissionDecision {
  behavior: "allow" | "deny" | "ask";
  message: string;
  reason: string | null;
  /** The rule string (`Bash(git:*)`) that decided, when a rule did. */
  rule?: string;
  bypassImmune: boolean;
  /** Rule strings; null where the reference leaves suggested_rules null. */
  suggestions: string[] | null;
  decidedBy: DecidedBy;
  /** Set only when an allow rule matched: the input, unchanged. */
  updatedInput?: Record<string, unknown>;
}

export interface RuleSet {
  allow: PermissionRule[];
  deny: PermissionRule[];
  ask: PermissionRule[];
}

/**
 * Everything a decision depends on. Paths are strings inside the sandbox; `cwd` plays the
 * reference's "process cwd" and `home` the sandbox user's home.
 */
export interface PermissionContext {
  mode: PermissionMode;
  cwd: string;
  home: string;
  /** Extra working directories; `cwd` is always one as well. */
  workingDirectories: string[];
  rules: RuleSet;
}

export type ToolInput = Record<string, unknown>;

/**
 * The permission face of a tool: what the engine calls. Built-in tools implement it in
 * `src/permission`; FunctionTool, MCP and external tools implement it in `src/toolkit`.
 */
export interface PermissionSubject {
  readonly name: string;
  checkPermissions(input: ToolInput, ctx: PermissionContext): ToolDecision;
  checkReadOnly(input: ToolInput, ctx: PermissionContext): boolean;
  /** Does one rule's content match this call? `null`/"" content is handled by the engine. */
  matchRule(ruleContent: string, input: ToolInput, ctx: PermissionContext): boolean;
  /**
   * Optional set-level allow matching: Bash allows a compound command only when every simple command
   * is covered (docs/permission.md#stricter-allow-rules-cover-every-command). Returns the deciding rule.
   */
  matchAllowRules?(
    rules: PermissionRule[],
    input: ToolInput,
    ctx: PermissionContext,
  ): PermissionRule | undefined;
  generateSuggestions(input: ToolInput, ctx: PermissionContext): PermissionRule[];
}
