/**
 * A plain-object copy of a tree-sitter tree, built in one cursor walk. Every Bash layer reads
 * this copy, so the native tree is walked exactly once per command.
 */
import type Parser from "tree-sitter";

/** One node: its type and its UTF-16 (JS string) offsets into the command. */
export interface SyntaxNode {
  type: string;
  start: number;
  end: number;
  children: SyntaxNode[];
}

/** Copies `tree` into plain objects (node-tree-sitter offsets are UTF-16 units for JS strings). */
export function toSyntaxTree(tree: Parser.Tree): SyntaxNode {
  const cursor = tree.walk();
  const root: SyntaxNode = {
    type: cursor.nodeType,
    start: cursor.startIndex,
    end: cursor.endIndex,
    children: [],
  };
  const stack: SyntaxNode[] = [root];
  // Depth-first: descend when possible, else advance to a sibling, else climb.
  for (;;) {
    if (cursor.gotoFirstChild()) {
      const parent = stack[stack.length - 1] as SyntaxNode;
      const node = { type: cursor.nodeType, start: cursor.startIndex, end: cursor.endIndex, children: [] };
      parent.children.push(node);
      stack.push(node);
      continue;
    }
    for (;;) {
      stack.pop();
      if (cursor.gotoNextSibling()) {
        const parent = stack[stack.length - 1] as SyntaxNode;
        const node = { type: cursor.nodeType, start: cursor.startIndex, end: cursor.endIndex, children: [] };
        parent.children.push(node);
        stack.push(node);
        break;
      }
      if (!cursor.gotoParent()) return root;
    }
  }
}
