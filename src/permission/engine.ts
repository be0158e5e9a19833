/**
 * The permission engine (docs/permission.md#decision-order): deny rules, ask rules, the mode's read-only
 * path, the tool's own check, allow rules and the mode default, in that order. Never passthrough.
 */
import { allowByRule, askByRule, byMode, convertAskToDeny, denyByRule } from "./decisions.js";
import { firstMatchingRule, matchingAllowRule } from "./rule-match.js";
import { formatRule } from "./rules.js";
import type {
  PermissionContext,
  PermissionDecision,
  PermissionSubject,
  ToolDecision,
  ToolInput,
} from "./types.js";

/** The subject's suggestions, formatted (a plain function: no closure made per decision). */
function suggest(subject: PermissionSubject, input: ToolInput, ctx: PermissionContext): string[] {
  return subject.generateSuggestions(input, ctx).map(formatRule);
}

/** The keys of a ToolDecision, in the order the built-in checks write them. */
const TOOL_DECISION_KEYS = ["behavior", "message", "reason", "bypassImmune"] as const;

/** Does `own` have exactly the four ToolDecision keys, in their usual order? */
function isPlainToolDecision(own: ToolDecision): boolean {
  let n = 0;
  for (const k in own) {
    if (k !== TOOL_DECISION_KEYS[n++]) return false;
  }
  // A spread would also copy own symbol keys.
  return n === TOOL_DECISION_KEYS.length && Object.getOwnPropertySymbols(own).length === 0;
}

/**
 * `{ ...own, behavior, suggestions, decidedBy: "tool" }`, built field by field for the usual
 * shape: V8 (Node 20) takes a slow path of several µs for a spread followed by more properties.
 * Any other shape keeps the spread's exact semantics through Object.assign.
 */
function byTool(
  own: ToolDecision,
  behavior: PermissionDecision["behavior"],
  suggestions: string[] | null,
): PermissionDecision {
  if (isPlainToolDecision(own)) {
    return {
      behavior,
      message: own.message,
      reason: own.reason,
      bypassImmune: own.bypassImmune,
      suggestions,
      decidedBy: "tool",
    };
  }
  return Object.assign({}, own, { behavior, suggestions, decidedBy: "tool" as const });
}

/** Decides whether one call of `subject` with `input` may run under `ctx`. */
export function checkPermission(
  subject: PermissionSubject,
  input: ToolInput,
  ctx: PermissionContext,
): PermissionDecision {
  const tool = subject.name;
  const { mode } = ctx;

  const deny = firstMatchingRule(ctx.rules.deny, subject, input, ctx);
  if (deny) return denyByRule(tool, deny);

  const ask = firstMatchingRule(ctx.rules.ask, subject, input, ctx);
  if (ask) {
    const decision = askByRule(tool, ask, suggest(subject, input, ctx));
    return mode === "dont_ask" ? convertAskToDeny(tool, decision) : decision;
  }

  if (mode === "explore") {
    return subject.checkReadOnly(input, ctx)
      ? byMode(
          "allow",
          `Permission granted for ${tool} (explore mode - read-only invocation)`,
          "Explore mode allows read-only operations",
        )
      : byMode(
          "deny",
          `Permission denied for ${tool} (explore mode is read-only)`,
          "Explore mode does not allow modifications",
        );
  }
  if (mode === "accept_edits" && subject.checkReadOnly(input, ctx)) {
    return byMode(
      "allow",
      `Permission granted for ${tool} (accept edits mode - read-only invocation)`,
      "Accept edits mode allows read-only operations",
    );
  }

  const own = subject.checkPermissions(input, ctx);
  if (own.behavior === "allow" || own.behavior === "deny") {
    return byTool(own, own.behavior, null);
  }
  // A non-immune ASK is PASSTHROUGH in every mode; BYPASS ignores even a safety ASK.
  if (own.behavior === "ask" && own.bypassImmune && mode !== "bypass") {
    const decision = byTool(own, "ask", suggest(subject, input, ctx));
    return mode === "dont_ask" ? convertAskToDeny(tool, decision) : decision;
  }

  const allow = matchingAllowRule(ctx.rules.allow, subject, input, ctx);
  if (allow) return allowByRule(tool, allow, input);

  if (mode === "bypass") {
    return byMode(
      "allow",
      `Permission granted for ${tool} (bypass mode)`,
      "Bypass mode allows all operations",
    );
  }
  if (mode === "dont_ask") {
    return byMode(
      "deny",
      `Permission denied for ${tool} (dont_ask mode - user not available)`,
      "User is not available to answer permission prompts",
    );
  }
  return byMode("ask", `Permission required for ${tool}`, `Mode: ${mode}`, suggest(subject, input, ctx));
}
