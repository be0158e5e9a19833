/**
 * Builders for the engine's decisions, with the reference's exact messages
 * (docs/permission.md#decision-order), including the DONT_ASK conversion of an ASK into a DENY.
 */
import { formatRule } from "./rules.js";
import type { PermissionDecision, PermissionRule, ToolInput } from "./types.js";

/** Python's rendering of an optional string, as the reference prints it in reasons. */
function show(value: string | null): string {
  return value ?? "None";
}

/** The DENY a deny rule produces (decision order, step 1). */
export function denyByRule(tool: string, rule: PermissionRule): PermissionDecision {
  return {
    behavior: "deny",
    message: `Permission to use ${tool} has been denied`,
    reason: `Rule: ${show(rule.ruleContent)}`,
    rule: formatRule(rule),
    bypassImmune: false,
    suggestions: null,
    decidedBy: "rule",
  };
}

/** The ASK an ask rule produces (decision order, step 2). */
export function askByRule(tool: string, rule: PermissionRule, suggestions: string[]): PermissionDecision {
  return {
    behavior: "ask",
    message: `Permission required for ${tool}`,
    reason: `Rule: ${show(rule.ruleContent)}`,
    rule: formatRule(rule),
    bypassImmune: false,
    suggestions,
    decidedBy: "rule",
  };
}

/** The ALLOW an allow rule produces (decision order, step 4): the only decision carrying updatedInput. */
export function allowByRule(tool: string, rule: PermissionRule, input: ToolInput): PermissionDecision {
  return {
    behavior: "allow",
    message: `Permission granted for ${tool}`,
    reason: null,
    rule: formatRule(rule),
    bypassImmune: false,
    suggestions: null,
    decidedBy: "rule",
    updatedInput: input,
  };
}

/** A decision settled by the mode alone, never carrying suggestions unless given. */
export function byMode(
  behavior: PermissionDecision["behavior"],
  message: string,
  reason: string,
  suggestions: string[] | null = null,
): PermissionDecision {
  return { behavior, message, reason, bypassImmune: false, suggestions, decidedBy: "mode" };
}

/** DONT_ASK conversion: an ASK becomes a DENY in DONT_ASK, keeping its suggestions and original reason. */
export function convertAskToDeny(tool: string, ask: PermissionDecision): PermissionDecision {
  // Object.assign, not a spread with overrides: same result, without V8's slow path for it.
  return Object.assign({}, ask, {
    behavior: "deny" as const,
    message: `Permission denied for ${tool} (dont_ask mode - ASK converted to DENY, user not available)`,
    reason: `DONT_ASK mode converted ASK to DENY. Original reason: ${show(ask.reason)}`,
    bypassImmune: false,
  });
}
