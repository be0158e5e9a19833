/**
 * The policy check (docs/api.md#policy-check): validate one request, run the engine and the tool's
 * own pieces over it, and answer with everything an admin needs to debug a rule set. Pure.
 */
import { z } from "zod";
import { checkPermission } from "./engine.js";
import { explainDecision, type PolicyExplanation } from "./policy-explanation.js";
import { formatRule, parseRule, parseRuleSet, RuleSetError, RuleSyntaxError } from "./rules.js";
import {
  type PermissionBehavior,
  type PermissionContext,
  PermissionModeSchema,
  type PermissionSubject,
} from "./types.js";

const AbsolutePath = z.string().startsWith("/", { error: "must be an absolute path (start with /)" });
const RuleList = z.array(z.string()).default([]);

/** One policy-check request; unknown fields are rejected so typos do not go unnoticed. */
export const PolicyCheckRequest = z.strictObject({
  tool: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  mode: PermissionModeSchema.default("default"),
  workingDirectories: z.array(z.string()).default([]),
  rules: z
    .strictObject({ allow: RuleList, deny: RuleList, ask: RuleList })
    .default({ allow: [], deny: [], ask: [] }),
  cwd: AbsolutePath.default("/workspace"),
  home: AbsolutePath.default("/home/agent"),
  rule: z.string().optional(),
});
/** The parsed request, defaults applied. */
export type PolicyCheckRequest = z.infer<typeof PolicyCheckRequest>;

/** The answer to a valid request. */
export interface PolicyCheckAnswer {
  behavior: "allow" | "deny" | "ask";
  bypassImmune: boolean;
  message: string;
  reason: string | null;
  suggestions: string[] | null;
  tool: { behavior: PermissionBehavior; bypassImmune: boolean; message: string };
  readOnly: boolean;
  toolSuggestions: string[];
  match?: boolean;
  /** Which step and rule decided (or which rule is missing); for Bash, per simple command. */
  explanation: PolicyExplanation;
}

/** One located problem with a request. */
export interface ValidationDetail {
  path: string;
  message: string;
}

/** The answer to an invalid request. */
export interface PolicyCheckError {
  error: { code: "VALIDATION"; message: string; details: ValidationDetail[] };
}

/** Renders a zod issue path as `rules.allow[2]` / `input.file_path`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
}

/** One detail per zod issue; an unknown-key issue names each key so typos are easy to spot. */
function issueDetails(issue: z.core.$ZodIssue): ValidationDetail[] {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      path: formatIssuePath([...issue.path, key]),
      message: "Unknown field",
    }));
  }
  return [{ path: formatIssuePath(issue.path), message: issue.message }];
}

function validationError(details: ValidationDetail[]): PolicyCheckError {
  const message = `Invalid policy check: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`;
  return { error: { code: "VALIDATION", message, details } };
}

/** Does the optional `rule` string apply to this call? A rule for another tool never does. */
function matchOne(rule: string, subject: PermissionSubject, req: PolicyCheckRequest, ctx: PermissionContext) {
  const parsed = parseRule(rule, "allow", "policy-check");
  if (parsed.toolName !== subject.name) return false;
  if (parsed.ruleContent === null || parsed.ruleContent === "") return true;
  return subject.matchRule(parsed.ruleContent, req.input, ctx);
}

/** Validates one request against the known tools (`builtinSubjects()`) and answers it, or a VALIDATION error. */
export function runPolicyCheck(
  raw: unknown,
  subjects: ReadonlyMap<string, PermissionSubject>,
): PolicyCheckAnswer | PolicyCheckError {
  const parsed = PolicyCheckRequest.safeParse(raw);
  if (!parsed.success) {
    return validationError(parsed.error.issues.flatMap(issueDetails));
  }
  const req = parsed.data;
  const subject = subjects.get(req.tool);
  const details: ValidationDetail[] = [];
  if (!subject) {
    const known = [...subjects.keys()].sort().join(", ");
    details.push({ path: "tool", message: `Unknown tool "${req.tool}"; known tools: ${known}` });
  }
  let rules: PermissionContext["rules"] = { allow: [], deny: [], ask: [] };
  try {
    rules = parseRuleSet(req.rules, "policy-check");
  } catch (err) {
    if (!(err instanceof RuleSetError)) throw err;
    details.push(...err.issues);
  }
  if (req.rule !== undefined) {
    try {
      parseRule(req.rule, "allow", "policy-check");
    } catch (err) {
      if (!(err instanceof RuleSyntaxError)) throw err;
      details.push({ path: "rule", message: err.message });
    }
  }
  if (!subject || details.length > 0) return validationError(details);

  const ctx: PermissionContext = {
    mode: req.mode,
    cwd: req.cwd,
    home: req.home,
    workingDirectories: req.workingDirectories,
    rules,
  };
  const decision = checkPermission(subject, req.input, ctx);
  const own = subject.checkPermissions(req.input, ctx);
  const answer: PolicyCheckAnswer = {
    behavior: decision.behavior,
    bypassImmune: decision.bypassImmune,
    message: decision.message,
    reason: decision.reason,
    suggestions: decision.suggestions,
    tool: { behavior: own.behavior, bypassImmune: own.bypassImmune, message: own.message },
    readOnly: subject.checkReadOnly(req.input, ctx),
    toolSuggestions: subject.generateSuggestions(req.input, ctx).map(formatRule),
    explanation: explainDecision(subject.name, req.input, ctx, decision),
  };
  if (req.rule !== undefined) answer.match = matchOne(req.rule, subject, req, ctx);
  return answer;
}
