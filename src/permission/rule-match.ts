/**
 * Rule lookup for one call (docs/permission.md#rule-lookup): rules apply by exact tool name,
 * in insertion order; a null or empty content matches every call before the tool is asked.
 */
import type { PermissionContext, PermissionRule, PermissionSubject, ToolInput } from "./types.js";

function isToolLevel(rule: PermissionRule): boolean {
  return rule.ruleContent === null || rule.ruleContent === "";
}

/** The first rule of `rules` for this tool that matches the call, or undefined. */
export function firstMatchingRule(
  rules: readonly PermissionRule[],
  subject: PermissionSubject,
  input: ToolInput,
  ctx: PermissionContext,
): PermissionRule | undefined {
  for (const r of rules) {
    if (r.toolName !== subject.name) continue;
    if (isToolLevel(r) || subject.matchRule(r.ruleContent as string, input, ctx)) return r;
  }
  return undefined;
}

/**
 * The allow rule that covers the call: a tool-level rule first, else the subject's set-level
 * matcher (Bash: every simple command covered), else the first matching content rule.
 */
export function matchingAllowRule(
  rules: readonly PermissionRule[],
  subject: PermissionSubject,
  input: ToolInput,
  ctx: PermissionContext,
): PermissionRule | undefined {
  // A fresh array: the subject's matcher must not be able to touch the context's rules.
  const own = rules.filter((r) => r.toolName === subject.name);
  for (const r of own) if (isToolLevel(r)) return r;
  if (subject.matchAllowRules) return subject.matchAllowRules(own, input, ctx);
  return firstMatchingRule(own, subject, input, ctx);
}
