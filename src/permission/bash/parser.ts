/**
 * The one tree-sitter-bash parser of the process, created lazily and reused. Parsing is a pure
 * function of the string; a failed or runaway parse yields null instead of throwing.
 */
import Parser from "tree-sitter";
import Bash from "tree-sitter-bash";

let parser: Parser | null = null;

/** Bounds a parse by work done (progress callbacks), not by time, so the package stays clock-free. */
const MAX_PROGRESS_CALLS = 20_000;

function getParser(): Parser {
  if (parser === null) {
    const p = new Parser();
    p.setLanguage(Bash as unknown as Parser.Language);
    parser = p;
  }
  return parser;
}

/** Parses `command` with tree-sitter-bash; null when the parser throws or gives up. */
export function parseBash(command: string): Parser.Tree | null {
  try {
    const p = getParser();
    let calls = 0;
    const tree = p.parse(command, null, {
      progressCallback: () => {
        calls++;
        return calls > MAX_PROGRESS_CALLS;
      },
    });
    if (!tree?.rootNode) {
      p.reset();
      return null;
    }
    return tree;
  } catch {
    parser?.reset();
    return null;
  }
}
