/**
 * Why the policy check decided what it did: the step of the decision order, the rule that decided
 * (or that none did), and for Bash each simple command with the rule that covers it, or the rule
 * it misses. Pure; recomputed from the request, never from the engine's internals.
 */
import { analyseBash } from "./bash/analysis.js";
import { compileBashRule } from "./bash/match-rule.js";
import { commandOf } from "./bash/policy.js";
import { isReadOnlyCommand } from "./bash/read-only.js";
import { suggestRules } from "./bash/suggestions.js";
import { formatRule } from "./rules.js";
import type { PermissionContext, PermissionDecision, PermissionRule, ToolInput } from "./types.js";

export type DecisionStep = "deny rule" | "ask rule" | "mode" | "tool check" | "allow rule";

/** One simple command of a Bash line and what the rules say about it on its own. */
export interface CommandExplanation {
  command: string;
  /** 0 for the line itself; more inside `$(..)`, `sh -c '..'` or `eval`. */
  depth: number;
  /** The first deny, ask or allow rule matching this command (in that order), or null. */
  rule: { list: "deny" | "ask" | "allow"; rule: string } | null;
  /** Needs no allow rule (a read-only command). */
  readOnly: boolean;
  /** The allow rule that would cover it, when nothing covers it and it is not read-only. */
  missingRule: string | null;
}

export interface PolicyExplanation {
  step: DecisionStep;
  /** The rule that decided, or null when none did (then `summary` says what was missing). */
  rule: string | null;
  /** Bash only: the line split into simple commands, as the engine judged it. */
  commands?: CommandExplanation[];
  /** One sentence for a person. */
  summary: string;
}

export function explainDecision(
  tool: string,
  input: ToolInput,
  ctx: PermissionContext,
  decision: PermissionDecision,
): PolicyExplanation {
  const step = stepOf(decision, ctx);
  const commands = tool === "Bash" ? explainCommands(input, ctx) : undefined;
  const rule = decision.rule ?? null;
  return {
    step,
    rule,
    ...(commands ? { commands } : {}),
    summary: summarise(tool, step, decision, ctx, commands),
  };
}

function stepOf(d: PermissionDecision, ctx: PermissionContext): DecisionStep {
  if (d.decidedBy === "tool") return "tool check";
  if (d.decidedBy === "mode") return "mode";
  const rule = d.rule ?? "";
  if (ctx.rules.deny.some((r) => formatRule(r) === rule)) return "deny rule";
  if (ctx.rules.ask.some((r) => formatRule(r) === rule)) return "ask rule";
  return "allow rule";
}

function explainCommands(input: ToolInput, ctx: PermissionContext): CommandExplanation[] | undefined {
  const command = commandOf(input);
  if (!command) return undefined;
  try {
    const a = analyseBash(command, ctx.cwd, ctx.home);
    return a.commands.map((cmd) => {
      const rule = firstRuleFor(cmd.text, ctx);
      const readOnly = isReadOnlyCommand(cmd);
      let missingRule: string | null = null;
      if (!rule && !readOnly) {
        const one = analyseBash(cmd.text, ctx.cwd, ctx.home);
        missingRule = suggestRules(one).map(formatRule)[0] ?? `Bash(${cmd.text})`;
      }
      return { command: cmd.text, depth: cmd.depth, rule, readOnly, missingRule };
    });
  } catch {
    // The engine has already answered safely; the explanation is only what can be said.
    return undefined;
  }
}

function firstRuleFor(text: string, ctx: PermissionContext): CommandExplanation["rule"] {
  for (const list of ["deny", "ask", "allow"] as const) {
    const hit = ctx.rules[list].find((r) => r.toolName === "Bash" && matches(r, text));
    if (hit) return { list, rule: formatRule(hit) };
  }
  return null;
}

function matches(r: PermissionRule, text: string): boolean {
  if (r.ruleContent === null || r.ruleContent === "") return true;
  return compileBashRule(r.ruleContent)(text);
}

function summarise(
  tool: string,
  step: DecisionStep,
  d: PermissionDecision,
  ctx: PermissionContext,
  commands: CommandExplanation[] | undefined,
): string {
  const what = `${d.behavior} for ${tool}`;
  if (step === "deny rule" || step === "ask rule" || step === "allow rule") {
    const cmd = commands?.find((c) => c.rule?.rule === d.rule);
    return `${what}: the ${step} ${d.rule} matched${cmd ? ` the simple command \`${cmd.command}\`` : ""}`;
  }
  if (step === "tool check") {
    return `${what}: the tool's own check decided before any allow rule: ${d.message}${d.reason ? ` (${d.reason})` : ""}`;
  }
  const missing = (commands ?? []).filter((c) => c.missingRule !== null);
  if (missing.length > 0) {
    const list = missing.map((c) => `\`${c.command}\` (would need ${c.missingRule})`).join(", ");
    return `${what}: no allow rule covers ${list}, so mode ${ctx.mode} decided`;
  }
  return `${what}: no rule matched, so mode ${ctx.mode} decided (${d.reason ?? d.message})`;
}
