/**
 * Splitting a parsed command into simple commands (docs/permission.md#stricter-every-separator-splits):
 * `&& || ; | |& &` and newlines all separate; each simple command carries its resolved name, its words
 * and the redirects attached to it. Redirects on compound statements are kept apart as "loose".
 */

import type { FileArgs, SedCall } from "./command-memo.js";
import { resolveName } from "./command-name.js";
import type { SyntaxNode } from "./syntax.js";
import { joinWords, toWord, type Word } from "./words.js";

/** One redirect (`2>/dev/null`, `> out`, `<<EOF`, `<<< s`). */
export interface Redirect {
  op: string;
  fd: string | null;
  /** The file (or fd number) redirected to; null for heredocs and here-strings. */
  target: Word | null;
  start: number;
  end: number;
}

/** One simple command of the line. */
export interface SimpleCommand {
  /** Source text, attached redirects included, trimmed. */
  text: string;
  start: number;
  end: number;
  /** Names assigned before the command (`FOO=1 cmd`) or through `env FOO=1`. */
  assignments: string[];
  /** Only the `FOO=1 cmd` assignments (what the reference's suggestions look at). */
  prefixAssignments: string[];
  /** Their values after quote removal, in the same order; null when one depends on an expansion. */
  prefixValues: (string | null)[];
  /** The command word and every argument, as written (assignments excluded). */
  words: Word[];
  /** Basename of the command after wrappers; null when unknown or absent. */
  name: string | null;
  nameWord: Word | null;
  /** Arguments of the resolved command (wrapper words excluded). */
  args: Word[];
  wrappers: string[];
  wrapperOptions: string[];
  redirects: Redirect[];
  /** 0 for the line itself; more inside `$(..)`, `sh -c '..'` or `eval`. */
  depth: number;
  inPipeline: boolean;
  /** The operator right after it (`&&`, `||`, `;`, `&`, `|`, `|&`) or null. */
  nextOp: string | null;
  /** The directory it runs in after earlier `cd`s; null when that cannot be known. */
  cwd: string | null;
  /** A token among its words that is no word (`$"…"` parses as `$` then a string). */
  odd: boolean;
  /** Verdicts computed once per analysed command (the analysis is memoised and shared). */
  memo: { readOnly?: boolean; normalised?: string; sed?: SedCall; files?: FileArgs };
}

/** Everything found in one tree. */
export interface Collected {
  commands: SimpleCommand[];
  /** Redirects on compound statements or with no command at all (`> f`). */
  looseRedirects: Redirect[];
  /** Variables assigned outside commands (`A=1`, `export PATH=...`). */
  assignments: string[];
}

/** The walk's state: what is found so far, and whether the tree has any substitution at all. */
interface State extends Collected {
  substitutions: boolean;
}

const REDIRECTS = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);
const OPERATORS = new Set(["&&", "||", ";", "&", "|", "|&", ";;", "\n"]);
const SUBSTITUTIONS = new Set(["command_substitution", "process_substitution"]);

const HEREDOC_PARTS = new Set(["heredoc_start", "heredoc_body", "heredoc_end"]);

/** Reads a redirect node; statements that follow a heredoc start (`<<EOF | grep x`) go to `stmts`. */
function toRedirects(
  node: SyntaxNode,
  src: string,
  home: string,
  out: Redirect[],
  extra: Word[],
  stmts: SyntaxNode[],
): void {
  let fd: string | null = null;
  let op = "";
  let target: Word | null = null;
  let targetEnd = -1;
  for (const c of node.children) {
    if (c.type === "file_descriptor") fd = src.slice(c.start, c.end);
    else if (REDIRECTS.has(c.type)) toRedirects(c, src, home, out, extra, stmts);
    else if (HEREDOC_PARTS.has(c.type)) continue;
    else if (node.type === "heredoc_redirect" && op !== "") stmts.push(c);
    else if (op === "" && !/[A-Za-z0-9_]/.test(c.type)) op = c.type;
    else if (node.type === "file_redirect" && (target === null || continues(src, targetEnd, c.start))) {
      // Touching the target (`>'/dev/null'\-x`): bash reads one word where tree-sitter has two.
      const w = toWord(c, src, home);
      target = target === null ? w : joinWords(target, w, src.slice(targetEnd, c.start));
      targetEnd = c.end;
    }
    // `echo > f x`: tree-sitter hangs `x` on the redirect; bash gives it to the command.
    else if (node.type === "file_redirect") extra.push(toWord(c, src, home));
  }
  out.push({ op, fd, target, start: node.start, end: node.end });
}

/**
 * Collects simple commands and redirects from the tree rooted at `root`. `substitutions` false
 * promises the tree has no `$(..)`/`<(..)`, so words need not be searched for hidden commands.
 */
export function collectCommands(
  root: SyntaxNode,
  src: string,
  home: string,
  depth = 0,
  substitutions = true,
): Collected {
  const state: State = { commands: [], looseRedirects: [], assignments: [], substitutions };
  visit(root, src, home, depth, false, state);
  return { commands: state.commands, looseRedirects: state.looseRedirects, assignments: state.assignments };
}

function visit(node: SyntaxNode, src: string, home: string, depth: number, pipe: boolean, out: State): void {
  if (node.type === "command") {
    addCommand(node, [], node.end, src, home, depth, pipe, out);
    return;
  }
  if (node.type === "redirected_statement") {
    const body = node.children.find((c) => !REDIRECTS.has(c.type));
    const redirects: Redirect[] = [];
    const extra: Word[] = [];
    const stmts: SyntaxNode[] = [];
    for (const c of node.children) {
      if (REDIRECTS.has(c.type)) toRedirects(c, src, home, redirects, extra, stmts);
    }
    const piped = pipe || stmts.some((s) => s.type === "pipeline");
    if (body?.type === "command") addCommand(body, redirects, node.end, src, home, depth, piped, out, extra);
    else if (body && (body.type === "list" || body.type === "pipeline")) {
      // tree-sitter hangs `a && b 2>/dev/null` on the list; bash gives it to `b`.
      const before = out.commands.length;
      visit(body, src, home, depth, pipe, out);
      const last = out.commands.slice(before).findLast((c) => c.depth === depth);
      if (last) {
        last.redirects.push(...redirects);
        last.text = src.slice(last.start, node.end).trim();
        last.end = node.end;
        last.args.push(...extra);
      } else out.looseRedirects.push(...redirects);
    } else {
      out.looseRedirects.push(...redirects);
      if (body) visit(body, src, home, depth, pipe, out);
    }
    visitAll(stmts, src, home, depth, piped, out);
    return;
  }
  if (node.type === "variable_assignment") {
    out.assignments.push(assignedName(node, src));
    if (out.substitutions) collectSubstitutions(node, src, home, depth + 1, out);
    return;
  }
  if (REDIRECTS.has(node.type)) {
    const stmts: SyntaxNode[] = [];
    toRedirects(node, src, home, out.looseRedirects, [], stmts);
    visitAll(stmts, src, home, depth, pipe, out);
    return;
  }
  const inPipe = pipe || node.type === "pipeline";
  visitAll(node.children, src, home, SUBSTITUTIONS.has(node.type) ? depth + 1 : depth, inPipe, out);
}

/** Visits sibling nodes in order, recording the operator after each command. */
function visitAll(
  nodes: SyntaxNode[],
  src: string,
  home: string,
  depth: number,
  pipe: boolean,
  out: State,
): void {
  for (const child of nodes) {
    if (OPERATORS.has(child.type)) {
      const last = out.commands[out.commands.length - 1];
      if (last && last.nextOp === null && last.depth === depth) last.nextOp = child.type;
      continue;
    }
    visit(child, src, home, depth, pipe, out);
  }
}

function assignedName(node: SyntaxNode, src: string): string {
  const eq = src.indexOf("=", node.start);
  return src.slice(node.start, eq === -1 || eq > node.end ? node.end : eq).replace(/\+$/, "");
}

/** The value of `NAME=value` after quote removal ("" when absent); null when it is not one known word. */
function assignedValue(node: SyntaxNode, src: string, home: string): string | null {
  const children = node.children;
  const op = children.findIndex((c) => c.type === "=" || c.type === "+=");
  if (op === -1) return null;
  const rest = children.slice(op + 1);
  if (rest.length === 0) return "";
  return rest.length === 1 ? toWord(rest[0] as SyntaxNode, src, home).value : null;
}

const NO_WORDS: Word[] = [];

/**
 * Does a word starting at `start` continue the one that ended at `end`? Nothing between them,
 * or only line continuations (`--out\<newline>put` is one word to bash, two to tree-sitter).
 */
function continues(src: string, end: number, start: number): boolean {
  if (start === end) return end >= 0;
  // The common case, a blank after the word, is decided by one character.
  if (end < 0 || src.charCodeAt(end) !== 92 || (start - end) % 2 !== 0) return false;
  for (let i = end; i < start; i += 2) if (src[i] !== "\\" || src[i + 1] !== "\n") return false;
  return true;
}

function addCommand(
  node: SyntaxNode,
  redirects: Redirect[],
  end: number,
  src: string,
  home: string,
  depth: number,
  pipe: boolean,
  out: State,
  extra: Word[] = NO_WORDS,
): void {
  const assignments: string[] = [];
  const values: (string | null)[] = [];
  const words: Word[] = [];
  const own: Redirect[] = [];
  // `extra` may be the shared empty array: toRedirects then gets a fresh one to push into.
  let spill = extra === NO_WORDS ? null : extra;
  let odd = false;
  // Where the last word ended: tree-sitter may split one bash word in two (`'-'\-'x'`).
  let wordEnd = -1;
  for (const c of node.children) {
    const type = c.type;
    if (type === "variable_assignment") {
      if (continues(src, wordEnd, c.start)) odd = true;
      wordEnd = c.end;
      assignments.push(assignedName(c, src));
      values.push(assignedValue(c, src, home));
    } else if (REDIRECTS.has(type)) {
      spill ??= [];
      toRedirects(c, src, home, own, spill, []);
    } else if (type === "comment") continue;
    else if (!/[a-z]/.test(type)) odd = true;
    else {
      const w = toWord(type === "command_name" ? (c.children[0] ?? c) : c, src, home);
      const prev = words[words.length - 1];
      if (prev !== undefined && continues(src, wordEnd, c.start)) {
        words[words.length - 1] = joinWords(prev, w, src.slice(wordEnd, c.start));
      } else words.push(w);
      wordEnd = c.end;
    }
  }
  if (spill !== null) for (const w of spill) words.push(w);
  const resolved = resolveName(words);
  // Neither array is mutated after this point, so the common cases share instead of copying.
  const env = resolved.envAssignments;
  if (redirects.length > 0) for (const r of redirects) own.push(r);
  out.commands.push({
    text: src.slice(node.start, end).trim(),
    start: node.start,
    end,
    assignments: env.length === 0 ? assignments.slice() : assignments.concat(env),
    prefixAssignments: assignments,
    prefixValues: values,
    words,
    name: resolved.name,
    nameWord: resolved.nameWord,
    args: resolved.args,
    wrappers: resolved.wrappers,
    wrapperOptions: resolved.wrapperOptions,
    redirects: own,
    depth,
    inPipeline: pipe,
    nextOp: null,
    cwd: null,
    odd,
    memo: {},
  });
  // Commands hidden in `$(..)` / `<(..)` are listed too, so deny rules can see them.
  if (out.substitutions) for (const c of node.children) collectSubstitutions(c, src, home, depth + 1, out);
}

function collectSubstitutions(node: SyntaxNode, src: string, home: string, depth: number, out: State): void {
  if (SUBSTITUTIONS.has(node.type)) {
    for (const c of node.children) visit(c, src, home, depth, false, out);
    return;
  }
  for (const c of node.children) collectSubstitutions(c, src, home, depth, out);
}
