/**
 * One analysis of a Bash command, shared by every layer: parse once, copy the tree once, split
 * into simple commands (nested `sh -c` / `eval` strings included) and find injections. The
 * last few analyses are memoised, so the engine's several calls per decision parse once.
 */
import type { PermissionRule } from "../types.js";
import { trackCwd } from "./cwd-tracking.js";
import { checkHeredocs } from "./heredoc.js";
import { lexesLikeBash } from "./lexing.js";
import { parseBash } from "./parser.js";
import { collectCommands, type Redirect, type SimpleCommand } from "./simple-commands.js";
import { type SyntaxTree, toSyntaxTree } from "./syntax.js";

/** Commands longer than this are not parsed at all. */
export const MAX_COMMAND_LENGTH = 65_536;

/** How deep `sh -c '...'` and `eval` strings are opened. */
const MAX_NESTING = 3;

// With the sandbox image's other names for bash: `bash-static` (its /bin/bash), `bash.dynamic`
// (the dynamic build, diverted) and `rbash` (Debian's link to bash) run `-c` code as bash does.
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "rbash", "bash-static", "bash.dynamic"]);

/** Everything the layers need to know about one command string. */
export interface BashAnalysis {
  command: string;
  /** Why the command cannot be analysed at all (shown after `Permission required: `), or null. */
  failure: string | null;
  /** The first node type that cannot be statically analysed (docs/permission.md#bash-layers), or null. */
  injection: string | null;
  /** tree-sitter found a syntax error: the split may be incomplete. */
  hasError: boolean;
  /** Syntax no auto-allow accepts (syntax.ts SOUND_TYPES), anywhere, nested code included. */
  unsound: boolean;
  commands: SimpleCommand[];
  looseRedirects: Redirect[];
  /** Variables assigned outside commands (`export PATH=...`). */
  assignments: string[];
  /** Results computed once per analysis and shared by the engine's several calls. */
  memo: { readOnly?: boolean; sound?: boolean; suggestions?: PermissionRule[] };
}

interface Found {
  injection: string | null;
  hasError: boolean;
  unsound: boolean;
  commands: SimpleCommand[];
  looseRedirects: Redirect[];
  assignments: string[];
}

/** The code string a shell or `eval` will run, when this command is one and it is literal. */
function nestedCode(cmd: SimpleCommand): string | null {
  if (cmd.name === "eval") {
    const values = cmd.args.map((a) => a.value);
    return values.every((v) => v !== null) ? values.join(" ") : null;
  }
  if (cmd.name === null || !SHELLS.has(cmd.name)) return null;
  for (let i = 0; i < cmd.args.length; i++) {
    const v = cmd.args[i]?.value;
    if (v == null || !v.startsWith("-") || v.startsWith("--")) continue;
    if (v.includes("c")) return cmd.args[i + 1]?.value ?? null;
  }
  return null;
}

/** Parses `text`, respelling here-document delimiters tree-sitter misreads (heredoc.ts). */
function parseByBashRules(text: string): { tree: SyntaxTree; text: string } | null {
  const parsed = parseBash(text);
  if (parsed === null) return null;
  const tree = toSyntaxTree(parsed);
  if (!lexesLikeBash(tree.root, text)) tree.hasError = true;
  if (!text.includes("<<")) return { tree, text };
  const check = checkHeredocs(tree.root, text);
  if (check.rewrite === null) {
    if (check.bad) tree.hasError = true;
    return { tree, text };
  }
  const again = parseBash(check.rewrite);
  if (again === null) return null;
  const respelt = toSyntaxTree(again);
  const recheck = checkHeredocs(respelt.root, check.rewrite);
  if (tree.hasError || check.bad || recheck.bad || recheck.rewrite !== null) respelt.hasError = true;
  return { tree: respelt, text: check.rewrite };
}

function analyseText(source: string, home: string, depth: number): Found | null {
  const parsed = parseByBashRules(source);
  if (parsed === null) return null;
  const { text } = parsed;
  const { root, hasError, unsound, injection, substitutions } = parsed.tree;
  const found = collectCommands(root, text, home, depth, substitutions);
  const result: Found = {
    injection,
    hasError,
    unsound,
    commands: found.commands,
    looseRedirects: found.looseRedirects,
    assignments: found.assignments,
  };
  if (depth >= MAX_NESTING) return result;
  for (const cmd of found.commands) {
    const code = nestedCode(cmd);
    if (code === null) continue;
    const inner = analyseText(code, home, depth + 1);
    if (inner === null) {
      result.hasError = true;
      continue;
    }
    result.injection ??= inner.injection;
    result.hasError ||= inner.hasError;
    result.unsound ||= inner.unsound;
    result.commands.push(...inner.commands);
    result.looseRedirects.push(...inner.looseRedirects);
    result.assignments.push(...inner.assignments);
  }
  return result;
}

/** An analysis that found nothing because it could not run (same fields as a spread of an empty one). */
function failed(command: string, failure: string): BashAnalysis {
  return {
    command,
    injection: null,
    hasError: false,
    unsound: true,
    commands: [],
    looseRedirects: [],
    assignments: [],
    memo: {},
    failure,
  };
}

function compute(command: string, cwd: string, home: string): BashAnalysis {
  if (command.length > MAX_COMMAND_LENGTH) {
    return failed(command, `Command is longer than ${MAX_COMMAND_LENGTH} characters and cannot be analysed`);
  }
  try {
    const parsed = analyseText(command, home, 0);
    if (parsed === null) return failed(command, "Command parsing failed, cannot verify safety");
    trackCwd(parsed.commands, cwd, home);
    // Field by field (not `...parsed`): V8 is slow on a spread mixed with other properties.
    return {
      command,
      failure: null,
      injection: parsed.injection,
      hasError: parsed.hasError,
      unsound: parsed.unsound,
      commands: parsed.commands,
      looseRedirects: parsed.looseRedirects,
      assignments: parsed.assignments,
      memo: {},
    };
  } catch {
    // In practice only a stack overflow on pathologically deep nesting lands here.
    return failed(command, "Command analysis failed, cannot verify safety");
  }
}

const MEMO_SIZE = 8;
/** Recent analyses; the engine asks several times per decision with the same string object. */
const memo: { command: string; cwd: string; home: string; result: BashAnalysis }[] = [];
let next = 0;

/** Analyses `command` as run in `cwd` with home `home`; memoised (a pure function of its inputs). */
export function analyseBash(command: string, cwd: string, home: string): BashAnalysis {
  // Newest first: a decision's several calls all ask for the analysis made last.
  for (let k = 1; k <= memo.length; k++) {
    const m = memo[(next - k + MEMO_SIZE) % MEMO_SIZE];
    if (m !== undefined && m.command === command && m.cwd === cwd && m.home === home) return m.result;
  }
  const result = compute(command, cwd, home);
  memo[next] = { command, cwd, home, result };
  next = (next + 1) % MEMO_SIZE;
  return result;
}
