/**
 * Shell words as Toolshed sees them (docs/permission.md#stricter-paths-are-seen-through-quotes): quotes
 * removed, `~`, `$HOME` and `${HOME}` expanded to the session's home, anything else that expands marked
 * unknown.
 */
import { decodeAnsiC } from "./ansi-c.js";
import type { SyntaxNode } from "./syntax.js";

/** One argument word of a simple command. */
export interface Word {
  /** The source text, as written. */
  raw: string;
  /** The tree-sitter node type (`word`, `string`, `raw_string`, `concatenation`, ...). */
  type: string;
  /** The literal value; null when it depends on an expansion other than the home directory. */
  value: string | null;
  /** Quotes removed but `~`, `$HOME` and unknown expansions kept as written (for messages). */
  lit: string;
  /** Glob and brace bits (word-shape.ts), computed on first use. */
  shape?: number;
}

interface Parts {
  value: string | null;
  lit: string;
}

const HOME_NAMES = new Set(["$HOME", "\u0024{HOME}"]);

/** Children of a double-quoted string that are plain text (read from the gaps instead). */
const LITERAL_IN_STRING = new Set(['"', '$"', "$", "string_content"]);

/** Unescapes an unquoted word: a backslash keeps the next character, a line continuation vanishes. */
function unescapeBare(s: string): string {
  if (s.indexOf("\\") === -1) return s;
  return s.replace(/\\([\s\S])/g, (_m, c: string) => (c === "\n" ? "" : c)).replace(/\\$/, "");
}

/** Inside double quotes only `\$ \` \" \\` and a backslash-newline are escapes. */
function unescapeDouble(s: string): string {
  return s.indexOf("\\") === -1 ? s : s.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === "\n" ? "" : c));
}

function tilde(text: string, home: string, first: boolean): Parts {
  if (first && text.startsWith("~")) {
    const slash = text.indexOf("/");
    const head = slash === -1 ? text : text.slice(0, slash);
    if (head !== "~") return { value: null, lit: unescapeBare(text) };
    return { value: home + unescapeBare(text.slice(1)), lit: unescapeBare(text) };
  }
  const v = unescapeBare(text);
  return { value: v, lit: v };
}

function doubleQuoted(node: SyntaxNode, src: string, home: string): Parts {
  const open = node.type === "translated_string" ? 2 : 1;
  const innerStart = node.start + open;
  const innerEnd = src[node.end - 1] === '"' && node.end - 1 >= innerStart ? node.end - 1 : node.end;
  let value: string | null = "";
  let lit = "";
  let pos = innerStart;
  for (const child of node.children) {
    if (LITERAL_IN_STRING.has(child.type)) continue;
    if (child.start > pos) {
      const text = unescapeDouble(src.slice(pos, Math.min(child.start, innerEnd)));
      lit += text;
      if (value !== null) value += text;
    }
    const part = evaluate(child, src, home, false);
    lit += part.lit;
    value = value === null || part.value === null ? null : value + part.value;
    pos = Math.max(pos, child.end);
  }
  if (innerEnd > pos) {
    const text = unescapeDouble(src.slice(pos, innerEnd));
    lit += text;
    if (value !== null) value += text;
  }
  return { value, lit };
}

function evaluate(node: SyntaxNode, src: string, home: string, first: boolean): Parts {
  return evaluateRaw(node, src.slice(node.start, node.end), src, home, first);
}

/** evaluate() with the node's source text already sliced. */
function evaluateRaw(node: SyntaxNode, raw: string, src: string, home: string, first: boolean): Parts {
  switch (node.type) {
    case "word":
    case "number":
      return tilde(raw, home, first);
    case "raw_string": {
      const inner = raw.length >= 2 && raw.endsWith("'") ? raw.slice(1, -1) : raw.slice(1);
      return { value: inner, lit: inner };
    }
    case "ansi_c_string": {
      const decoded = decodeAnsiC(raw.slice(2, raw.endsWith("'") ? -1 : undefined));
      return { value: decoded, lit: decoded ?? raw };
    }
    case "string":
    case "translated_string":
      return doubleQuoted(node, src, home);
    case "simple_expansion":
    case "expansion":
      return { value: HOME_NAMES.has(raw) ? home : null, lit: raw };
    case "concatenation": {
      let value: string | null = "";
      let lit = "";
      const children = node.children;
      for (let i = 0; i < children.length; i++) {
        const part = evaluate(children[i] as SyntaxNode, src, home, first && i === 0);
        lit += part.lit;
        value = value === null || part.value === null ? null : value + part.value;
      }
      return { value, lit };
    }
    default:
      return { value: null, lit: raw };
  }
}

/** Evaluates one argument node into a Word. */
export function toWord(node: SyntaxNode, src: string, home: string): Word {
  const raw = src.slice(node.start, node.end);
  const type = node.type;
  // The commonest case, a plain word with no `~` or backslash, is its own value.
  if ((type === "word" || type === "number") && raw.charCodeAt(0) !== 126 && raw.indexOf("\\") === -1) {
    return { raw, type, value: raw, lit: raw, shape: undefined };
  }
  const parts = evaluateRaw(node, raw, src, home, true);
  return { raw, type, value: parts.value, lit: parts.lit, shape: undefined };
}

/** Two words bash reads as one: nothing between them in the source, or only line continuations (`gap`). */
export function joinWords(a: Word, b: Word, gap = ""): Word {
  const value = a.value === null || b.value === null ? null : a.value + b.value;
  return { raw: a.raw + gap + b.raw, type: "concatenation", value, lit: a.lit + b.lit, shape: undefined };
}
