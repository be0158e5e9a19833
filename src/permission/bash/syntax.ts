/**
 * A plain-object copy of a tree-sitter tree, built in one cursor walk. Every Bash layer reads
 * this copy, so the native tree is walked exactly once per command.
 */
import type Parser from "tree-sitter";
import { INJECTION_NODE_TYPES } from "./injection.js";

/** One node: its type and its UTF-16 (JS string) offsets into the command. */
export interface SyntaxNode {
  type: string;
  start: number;
  end: number;
  children: SyntaxNode[];
}

/** The copied tree, whether tree-sitter had to recover from a syntax error, and the first injection node. */
export interface SyntaxTree {
  root: SyntaxNode;
  hasError: boolean;
  /** The first node type, in pre-order, that §5.4 flags; null when none. */
  injection: string | null;
}

/** Leaves share one empty array (most nodes are leaves; this halves the allocations). */
const LEAF: SyntaxNode[] = [];

/** Zero-width nodes that are legitimate; any other zero-width node is a MISSING token. */
const EMPTY_OK = new Set(["heredoc_content", "string_content", "heredoc_body", "program"]);

/** Copies `tree` into plain objects (node-tree-sitter offsets are UTF-16 units for JS strings). */
export function toSyntaxTree(tree: Parser.Tree): SyntaxTree {
  const cursor = tree.walk();
  const root: SyntaxNode = {
    type: cursor.nodeType,
    start: cursor.startIndex,
    end: cursor.endIndex,
    children: LEAF,
  };
  const stack: SyntaxNode[] = [root];
  let hasError = false;
  let injection: string | null = INJECTION_NODE_TYPES.has(root.type) ? root.type : null;
  const enter = (): void => {
    const parent = stack[stack.length - 1] as SyntaxNode;
    const node: SyntaxNode = {
      type: cursor.nodeType,
      start: cursor.startIndex,
      end: cursor.endIndex,
      children: LEAF,
    };
    if (node.type === "ERROR" || (node.start === node.end && !EMPTY_OK.has(node.type))) hasError = true;
    // The cursor walk is pre-order, so the first flagged node seen is the one §5.4 reports.
    if (injection === null && INJECTION_NODE_TYPES.has(node.type)) injection = node.type;
    if (parent.children === LEAF) parent.children = [node];
    else parent.children.push(node);
    stack.push(node);
  };
  // Depth-first: descend when possible, else advance to a sibling, else climb.
  for (;;) {
    if (cursor.gotoFirstChild()) {
      enter();
      continue;
    }
    for (;;) {
      stack.pop();
      if (cursor.gotoNextSibling()) {
        enter();
        break;
      }
      if (!cursor.gotoParent()) return { root, hasError, injection };
    }
  }
}
