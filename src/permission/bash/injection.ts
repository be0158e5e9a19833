/**
 * Injection detection (docs/permission.md#bash-layers): the node types that cannot be statically
 * analysed; the syntax walk reports the first one in pre-order. `c_style_for_statement` is
 * flagged like the other loops.
 */

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

/** The layer-0 message for a flagged node type. */
export function injectionMessage(nodeType: string): string {
  return `Command contains ${nodeType} which cannot be statically analyzed`;
}
