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
  /** Some node is outside SOUND_TYPES: the line can be neither read-only nor auto-allowed. */
  unsound: boolean;
  /** The first node type, in pre-order, that the injection layer flags; null when none. */
  injection: string | null;
  /** Some node is a `$(..)`/`` `..` ``/`<(..)` substitution (commands may hide inside words). */
  substitutions: boolean;
}

/** Leaves share one empty array (most nodes are leaves; this halves the allocations). */
const LEAF: SyntaxNode[] = [];

/**
 * The syntax an auto-allowed line may use: simple commands, words, quotes, `$NAME`, redirects,
 * here-documents, `{ …; }`, `!`. Not arithmetic, `declare`/`export`/`unset`, subscripts, brace
 * sequences, `&`, `((…))`, tests, loops or substitutions.
 */
const SOUND_TYPES: ReadonlySet<string> = new Set([
  "program",
  "list",
  "pipeline",
  "command",
  "command_name",
  "word",
  "string",
  "string_content",
  "raw_string",
  "ansi_c_string",
  "concatenation",
  "number",
  "simple_expansion",
  "variable_name",
  "special_variable_name",
  "variable_assignment",
  "file_redirect",
  "heredoc_redirect",
  "heredoc_start",
  "heredoc_body",
  "heredoc_content",
  "heredoc_end",
  "herestring_redirect",
  "file_descriptor",
  "redirected_statement",
  "compound_statement",
  "negated_command",
  "comment",
  "&&",
  "||",
  ";",
  "|",
  "|&",
  '"',
  "$",
  "{",
  "}",
  "!",
  "=",
  "+=",
  "<",
  ">",
  ">>",
  "&>",
  "&>>",
  "<&",
  ">&",
  ">|",
  "<&-",
  ">&-",
  "<<",
  "<<-",
  "<<<",
]);

/** Zero-width nodes that are legitimate; any other zero-width node is a MISSING token. */
const EMPTY_OK = new Set(["heredoc_content", "string_content", "heredoc_body", "program"]);

/** What the walk needs to know about one node type. */
interface TypeInfo {
  name: string;
  /** The injection layer flags it. */
  injection: boolean;
  /** A zero-width node of this type is legitimate. */
  emptyOk: boolean;
  /** A command or process substitution. */
  substitution: boolean;
  /** Not in SOUND_TYPES. */
  unsound: boolean;
}

/**
 * Node types by (public) grammar symbol id, per grammar, learnt from the cursor the first time
 * an id is seen. The mapping is a fixed property of the grammar, not of any command: it lets
 * the walk read a number instead of making a fresh native string per node, and gives every
 * layer one shared string per type (`===` and Set lookups compare a pointer, reuse a hash).
 */
interface TypeTable {
  /** Ids below DENSE_IDS; filled without gaps so the array stays packed. */
  dense: (TypeInfo | undefined)[];
  /** Larger ids (ERROR is 0xFFFF). */
  sparse: Map<number, TypeInfo>;
}
const DENSE_IDS = 4096;
const tables = new WeakMap<object, TypeTable>();

/** The internalised copy of `name` (property keys are), so `===` against literals is a pointer test. */
function internalise(name: string): string {
  const key: Record<string, true> = {};
  key[name] = true;
  return Object.keys(key)[0] ?? name;
}

function typeInfo(nativeName: string): TypeInfo {
  const name = internalise(nativeName);
  return {
    name,
    injection: INJECTION_NODE_TYPES.has(name),
    emptyOk: EMPTY_OK.has(name),
    substitution: name === "command_substitution" || name === "process_substitution",
    unsound: !SOUND_TYPES.has(name),
  };
}

/** The table of the tree's grammar (node-tree-sitter sets `tree.language`), or null if unknown. */
function tableFor(tree: Parser.Tree): TypeTable | null {
  const language = (tree as unknown as { language?: unknown }).language;
  if (typeof language !== "object" || language === null) return null;
  let table = tables.get(language);
  if (table === undefined) {
    table = { dense: [], sparse: new Map() };
    tables.set(language, table);
  }
  return table;
}

/** The type of the node under the cursor. */
function typeAt(cursor: Parser.TreeCursor, table: TypeTable | null): TypeInfo {
  if (table === null) return typeInfo(cursor.nodeType);
  const id = cursor.nodeTypeId;
  if (id >= 0 && id < DENSE_IDS) {
    const dense = table.dense;
    let info = dense[id];
    if (info === undefined) {
      while (dense.length < id) dense.push(undefined);
      info = typeInfo(cursor.nodeType);
      dense[id] = info;
    }
    return info;
  }
  let info = table.sparse.get(id);
  if (info === undefined) {
    info = typeInfo(cursor.nodeType);
    table.sparse.set(id, info);
  }
  return info;
}

/** Copies `tree` into plain objects (node-tree-sitter offsets are UTF-16 units for JS strings). */
export function toSyntaxTree(tree: Parser.Tree): SyntaxTree {
  const table = tableFor(tree);
  const cursor = tree.walk();
  let info = typeAt(cursor, table);
  const root: SyntaxNode = {
    type: info.name,
    start: cursor.startIndex,
    end: cursor.endIndex,
    children: LEAF,
  };
  // The path from the root to the current node; entries past `depth` are stale.
  const stack: SyntaxNode[] = [root];
  let depth = 1;
  let hasError = false;
  let unsound = info.unsound;
  let injection: string | null = info.injection ? info.name : null;
  let substitutions = info.substitution;
  // Depth-first: descend when possible, else advance to a sibling, else climb.
  for (;;) {
    if (!cursor.gotoFirstChild()) {
      for (;;) {
        depth--;
        if (cursor.gotoNextSibling()) break;
        if (!cursor.gotoParent()) return { root, hasError, unsound, injection, substitutions };
      }
    }
    // Entering a node; its parent is the top of the stack.
    info = typeAt(cursor, table);
    const type = info.name;
    const start = cursor.startIndex;
    const end = cursor.endIndex;
    const node: SyntaxNode = { type, start, end, children: LEAF };
    if (type === "ERROR" || (start === end && !info.emptyOk)) hasError = true;
    // Substitutions are injections, injections are unsound: one test for the common node.
    if (info.unsound) {
      unsound = true;
      // The cursor walk is pre-order, so the first flagged node seen is the one the injection layer reports.
      if (injection === null && info.injection) injection = type;
      if (info.substitution) substitutions = true;
    }
    const parent = stack[depth - 1] as SyntaxNode;
    if (parent.children === LEAF) parent.children = [node];
    else parent.children.push(node);
    stack[depth++] = node;
  }
}
