/**
 * Rule strings (docs/permission.md#stricter-rule-strings-are-validated): `Tool`, `Tool()` and
 * `Tool(content)`, where content is everything between the first `(` and the last `)`.
 */
import type { PermissionRule, RuleSet } from "./types.js";

/** A tool name: letters, digits, `_` and `-`, not starting with a digit (`mcp__server__tool` included). */
export const TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A rule string that cannot be parsed; the message says how to fix it. */
export class RuleSyntaxError extends Error {
  override readonly name = "RuleSyntaxError";
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message);
  }
}

/** Parses one rule string into a rule with the given behavior and source, or throws RuleSyntaxError. */
export function parseRule(s: string, behavior: PermissionRule["behavior"], source: string): PermissionRule {
  if (s.trim() === "") {
    throw new RuleSyntaxError(
      s,
      "Rule is empty: write `Tool`, `Tool()` or `Tool(content)`, e.g. `Bash(git:*)`",
    );
  }
  if (s !== s.trim()) {
    throw new RuleSyntaxError(s, `Rule "${s}" has leading or trailing whitespace: remove it`);
  }
  const open = s.indexOf("(");
  const toolName = open === -1 ? s : s.slice(0, open);
  if (!TOOL_NAME_PATTERN.test(toolName)) {
    throw new RuleSyntaxError(
      s,
      `Rule "${s}" has an invalid tool name "${toolName}": tool names match ^[A-Za-z_][A-Za-z0-9_-]*$ (e.g. Bash, Read, mcp__server__tool)`,
    );
  }
  if (open === -1) return { toolName, ruleContent: null, behavior, source };
  const close = s.lastIndexOf(")");
  if (close < open) {
    throw new RuleSyntaxError(s, `Rule "${s}" is missing a closing ")": write ${toolName}(content)`);
  }
  if (close !== s.length - 1) {
    throw new RuleSyntaxError(
      s,
      `Rule "${s}" has text after the closing ")": move "${s.slice(close + 1)}" inside the parentheses or remove it`,
    );
  }
  return { toolName, ruleContent: s.slice(open + 1, close), behavior, source };
}

/** Formats a rule back to its string form: `Tool` for null content, `Tool(content)` otherwise. */
export function formatRule(rule: Pick<PermissionRule, "toolName" | "ruleContent">): string {
  return rule.ruleContent === null ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`;
}

/** One problem in a rule set, located by field and index (`rules.allow[2]`). */
export interface RuleSetIssue {
  path: string;
  message: string;
}

/** A rule set with one or more bad rule strings; `issues` lists every one of them. */
export class RuleSetError extends Error {
  override readonly name = "RuleSetError";
  constructor(readonly issues: RuleSetIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join("; "));
  }
}

/** The string form of a rule set, as in tenant configs and the API. */
export interface RuleStrings {
  allow?: readonly string[];
  deny?: readonly string[];
  ask?: readonly string[];
}

const BEHAVIORS = ["allow", "deny", "ask"] as const;

/** Parses `{allow, deny, ask}` rule strings; throws RuleSetError listing every bad one (`rules.allow[i]`). */
export function parseRuleSet(strings: RuleStrings, source = "tenant", prefix = "rules"): RuleSet {
  const rules: RuleSet = { allow: [], deny: [], ask: [] };
  const issues: RuleSetIssue[] = [];
  for (const behavior of BEHAVIORS) {
    (strings[behavior] ?? []).forEach((s, i) => {
      try {
        rules[behavior].push(parseRule(s, behavior, source));
      } catch (err) {
        if (!(err instanceof RuleSyntaxError)) throw err;
        issues.push({ path: `${prefix}.${behavior}[${i}]`, message: err.message });
      }
    });
  }
  if (issues.length > 0) throw new RuleSetError(issues);
  return rules;
}
