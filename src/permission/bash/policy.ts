/**
 * The permission face of the `Bash` tool (docs/permission.md#bash): layers 0–7 run in
 * order on one shared analysis of the command, and nothing here ever throws.
 */
import { type DangerousLists, DEFAULT_DANGEROUS_LISTS, extendDangerousLists } from "../paths.js";
import type {
  PermissionContext,
  PermissionRule,
  PermissionSubject,
  ToolDecision,
  ToolInput,
} from "../types.js";
import { acceptEditsBase } from "./accept-edits.js";
import { analyseBash, type BashAnalysis } from "./analysis.js";
import { findDangerousPattern } from "./dangerous-patterns.js";
import { injectionMessage } from "./injection.js";
import { matchAllowSet, matchesAnyPart } from "./match-rule.js";
import { isReadOnlyAnalysis } from "./read-only.js";
import { findDangerousRemoval, removalMessage } from "./removal.js";
import { sedError } from "./sed.js";
import { findSensitivePaths } from "./sensitive-paths.js";
import { suggestRules } from "./suggestions.js";

/** Per-instance additions to the default dangerous lists. */
export interface BashPolicyOptions {
  additionalDangerousFiles?: readonly string[];
  additionalDangerousDirectories?: readonly string[];
}

/** The command of an input: a string, "" when absent, null when it is something else. */
export function commandOf(input: ToolInput): string | null {
  const c = input?.command;
  if (c === undefined || c === null) return "";
  return typeof c === "string" ? c : null;
}

const UNANALYSABLE = "Safety check: command cannot be statically analyzed";
const NOT_A_STRING = "Command is not a string and cannot be analysed";
const SYNTAX_ERROR = "Command has a syntax error and cannot be statically analyzed";

function ask(message: string, reason: string): ToolDecision {
  return { behavior: "ask", message: `Permission required: ${message}`, reason, bypassImmune: true };
}

function safetyLayers(a: BashAnalysis, ctx: PermissionContext, lists: DangerousLists): ToolDecision | null {
  const pattern = findDangerousPattern(a);
  if (pattern) {
    return ask(
      `Command contains dangerous pattern: ${pattern}`,
      "Safety check: dangerous command pattern detected",
    );
  }
  for (const cmd of a.commands) {
    if (cmd.name !== "sed") continue;
    const err = sedError(cmd, ctx.cwd, ctx.home, lists);
    if (err) return ask(err, `Safety check: ${err}`);
  }
  const hits = findSensitivePaths(a, ctx, lists);
  if (hits.length > 0) {
    return ask(
      `Bash command operates on sensitive paths: ${hits.join(", ")}`,
      "Safety check: dangerous file or directory in bash command",
    );
  }
  const removal = findDangerousRemoval(a, ctx.cwd, ctx.home);
  if (removal !== null) {
    return {
      behavior: "ask",
      message: removalMessage(removal),
      reason: "Safety check: dangerous removal of critical system path",
      bypassImmune: true,
    };
  }
  return null;
}

/** Layers 0–7 (docs/permission.md#bash-layers) for one command string. */
function decide(command: string, ctx: PermissionContext, lists: DangerousLists): ToolDecision {
  if (command === "")
    return { behavior: "passthrough", message: "Empty command", reason: null, bypassImmune: false };
  const a = analyseBash(command, ctx.cwd, ctx.home);
  if (a.failure !== null) return ask(a.failure, UNANALYSABLE);
  if (a.injection !== null) {
    return ask(
      injectionMessage(a.injection),
      "Safety check: command contains dynamic expansion that cannot be statically analyzed",
    );
  }
  // tree-sitter had to guess around a syntax error: the split may miss commands.
  if (a.hasError) return ask(SYNTAX_ERROR, UNANALYSABLE);
  if (isReadOnlyAnalysis(a)) {
    return {
      behavior: "allow",
      message: "Permission granted for read-only command",
      reason: "Read-only command is allowed",
      bypassImmune: false,
    };
  }
  const safety = safetyLayers(a, ctx, lists);
  if (safety) return safety;
  if (ctx.mode === "accept_edits") {
    const base = acceptEditsBase(a, ctx);
    if (base !== null) {
      return {
        behavior: "allow",
        message: `Permission granted for '${base}' command (accept edits mode - filesystem command, all targets in working directory)`,
        reason: `Filesystem command '${base}' is auto-allowed in accept edits mode because all target paths are within a working directory`,
        bypassImmune: false,
      };
    }
  }
  return {
    behavior: "passthrough",
    message: `Execute bash command: ${command}`,
    reason: null,
    bypassImmune: false,
  };
}

const ANALYSIS_FAILED = "Command analysis failed, cannot verify safety";

/** The `Bash` permission subject, with optional extra dangerous files and directories. */
export function bashPolicy(opts?: BashPolicyOptions): PermissionSubject {
  const lists = extendDangerousLists(DEFAULT_DANGEROUS_LISTS, opts);
  // Every entry point catches: an unexpected exception must still yield a safe answer.
  return {
    name: "Bash",
    checkPermissions(input, ctx) {
      const command = commandOf(input);
      if (command === null) return ask(NOT_A_STRING, UNANALYSABLE);
      try {
        return decide(command, ctx, lists);
      } catch {
        return ask(ANALYSIS_FAILED, UNANALYSABLE);
      }
    },
    checkReadOnly(input, ctx) {
      const command = commandOf(input);
      if (!command) return false;
      try {
        return isReadOnlyAnalysis(analyseBash(command, ctx.cwd, ctx.home));
      } catch {
        return false;
      }
    },
    matchRule(content, input, ctx) {
      const command = commandOf(input);
      if (command === null) return false;
      if (content === "") return true;
      try {
        return matchesAnyPart(content, analyseBash(command, ctx.cwd, ctx.home));
      } catch {
        // A failed match must not hide a deny rule: count it as a match.
        return true;
      }
    },
    matchAllowRules(rules: PermissionRule[], input, ctx) {
      const command = commandOf(input);
      if (command === null) return undefined;
      try {
        return matchAllowSet(rules, analyseBash(command, ctx.cwd, ctx.home));
      } catch {
        return undefined;
      }
    },
    generateSuggestions(input, ctx) {
      const command = commandOf(input);
      if (!command) return [];
      try {
        return suggestRules(analyseBash(command, ctx.cwd, ctx.home));
      } catch {
        return [];
      }
    },
  };
}
