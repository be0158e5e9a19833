/**
 * Tokens tree-sitter-bash ends elsewhere than bash does; a line with one is unanalysable
 * (attack26a). Both hid a command that bash runs inside what the analysis read as one word:
 * - `$'a\\' ; touch x #'`: in `$'…'` a backslash takes the next character, so `\\` is one
 *   backslash and the next `'` ends the string; tree-sitter read `\'` there as an escaped quote
 *   and the string as running on to the last `'`.
 * - `echo a\<CR><LF>touch x`: tree-sitter reads backslash-CR-LF as a line continuation; bash
 *   escapes the CR and ends the command at the LF.
 * And one tree-sitter reads as a word where bash assigns a variable: `{NAME}` right before a
 * redirection operator stores the new descriptor's number in NAME, in the shell itself for a
 * builtin. `true {PATH}</dev/null; git status` made PATH `10`, and bash ran `./10/git`, a file
 * the agent can write.
 */
import type { SyntaxNode } from "./syntax.js";

/** Where bash ends the `$'…'` that starts at `text[0]`: the index of its closing quote, or -1. */
export function ansiCEnd(text: string): number {
  for (let i = 2; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "'") return i;
  }
  return -1;
}

function ansiCStringsEndAlike(node: SyntaxNode, src: string): boolean {
  if (node.type === "ansi_c_string") {
    const text = src.slice(node.start, node.end);
    if (ansiCEnd(text) !== text.length - 1) return false;
  }
  return node.children.every((c) => ansiCStringsEndAlike(c, src));
}

/** `{NAME}>`, `{NAME[i]}<`…: bash's "assign the descriptor to NAME" (quoted or not: asking is safe). */
const VARNAME_REDIRECT = /\{[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\}[<>]/;

/** Does bash split `src` into the tokens tree-sitter found? */
export function lexesLikeBash(root: SyntaxNode, src: string): boolean {
  if (src.includes("\\\r") || VARNAME_REDIRECT.test(src.replaceAll("\\\n", ""))) return false;
  return !src.includes("$'") || ansiCStringsEndAlike(root, src);
}
