/**
 * Injection detection (permission.md §5.4, §10.4): the first node, in pre-order, whose type
 * cannot be statically analysed. `c_style_for_statement` is flagged like the other loops.
 */
import type { SyntaxNode } from "./syntax.js";

/** Node types that hide code or control flow from static analysis. */
export const INJECTION_NODE_TYPES: ReadonlySet<string> = new Set([
  "command_substitution",
  "process_substitution",
  "expansion",
  "subshell",
  "for_statement",
  "c_style_for_statement",
  "while_statement",
  "until_statement",
  "if_statement",
  "case_statement",
  "function_definition",
  "test_command",
]);

/** The type of the first flagged node in pre-order, or null. */
export function findInjection(root: SyntaxNode): string | null {
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as SyntaxNode;
    if (INJECTION_NODE_TYPES.has(node.type)) return node.type;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as SyntaxNode);
  }
  return null;
}

/** The layer-0 message for a flagged node type (§5.2). */
export function injectionMessage(nodeType: string): string {
  return `Command contains ${nodeType} which cannot be statically analyzed`;
}
