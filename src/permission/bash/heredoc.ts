/**
 * Here-documents end by bash's rules: at the delimiter after quote removal (`<<E"O"F` ends at
 * `EOF`), where tree-sitter compares the word as written. On disagreement the delimiter is
 * respelt (`<<'EOF'`) and parsed again, so the lines after the real end are analysed.
 */
import type { SyntaxNode } from "./syntax.js";

/** The delimiter bash compares lines with, and whether any part was quoted; null when unmodelled (`$'…'`). */
export function heredocDelimiter(raw: string): { text: string; quoted: boolean } | null {
  let text = "";
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === "$" && (raw[i + 1] === "'" || raw[i + 1] === '"')) return null;
    if (c === "\\") {
      quoted = true;
      text += raw[++i] ?? "";
    } else if (c === "'") {
      quoted = true;
      const end = raw.indexOf("'", i + 1);
      if (end === -1) return null;
      text += raw.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      quoted = true;
      let j = i + 1;
      for (; j < raw.length && raw[j] !== '"'; j++) {
        if (raw[j] === "\\" && '$`"\\\n'.includes(raw[j + 1] ?? "")) j++;
        text += raw[j];
      }
      if (j >= raw.length) return null;
      i = j;
    } else text += c;
  }
  return { text, quoted };
}

/** What the here-documents of one parse need. */
export interface HeredocCheck {
  /** The source with every misread delimiter respelt, or null when none was misread. */
  rewrite: string | null;
  /** A disagreement that respelling cannot fix. */
  bad: boolean;
}

function collect(node: SyntaxNode, out: SyntaxNode[]): void {
  if (node.type === "heredoc_redirect") out.push(node);
  for (const c of node.children) collect(c, out);
}

/**
 * Where bash ends a here-document whose body starts at `from`: the end of the first whole line
 * equal to `delimiter` (after its leading tabs with `<<-`), or -1 at the end of the input. bash
 * compares whole lines, so `EOF ` is no end (tree-sitter ended there). With an unquoted delimiter
 * (`splice`) it reads lines as read_a_line does (parse.y): a backslash-newline is removed, so
 * `EO\<newline>F` is the line `EOF`, and `x\<newline>EOF` is not a delimiter line; a backslash
 * keeps the next character as it is (`\\<newline>` ends a line).
 */
export function bashEnd(
  src: string,
  from: number,
  delimiter: string,
  stripTabs: boolean,
  splice = true,
): number {
  let line = "";
  for (let i = from; i <= src.length; i++) {
    const c = src[i];
    if (splice && c === "\\" && src[i + 1] === "\n") {
      i++;
      continue;
    }
    if (c !== undefined && c !== "\n") {
      line += c;
      if (splice && c === "\\" && src[i + 1] !== undefined) line += src[++i];
      continue;
    }
    if (line === delimiter || (stripTabs && line.replace(/^\t+/, "") === delimiter)) return i;
    line = "";
  }
  return -1;
}

/**
 * Does bash end this here-document where tree-sitter does? With an unquoted delimiter bash splices
 * backslash-newlines in the body before it compares lines, tree-sitter does not: `cat
 * <<EOF⏎EO\⏎F⏎touch x⏎EOF` ends after `F` for bash, which then runs `touch x`, a line tree-sitter
 * read as text (attack26a); respelling cannot fix that (a quoted delimiter stops the splicing).
 */
function agrees(node: SyntaxNode, src: string, delimiter: string, splice: boolean): boolean {
  const body = node.children.find((c) => c.type === "heredoc_body" || c.type === "heredoc_end");
  const end = node.children.find((c) => c.type === "heredoc_end");
  if (body === undefined) return end === undefined;
  const stripTabs = node.children.some((c) => c.type === "<<-");
  return bashEnd(src, body.start, delimiter, stripTabs, splice) === (end === undefined ? -1 : end.end);
}

/**
 * bash reads a body from the line after the command line; tree-sitter read `cat <<EOF⏎\⏎EOF⏎…` as
 * the command line `cat <<EOF EOF` continued, and its body began a line later than bash's. A
 * backslash-newline between the delimiter word and the body is refused, whatever the quoting.
 */
function startsWhereBashStarts(node: SyntaxNode, src: string, start: SyntaxNode): boolean {
  const body = node.children.find((c) => c.type === "heredoc_body" || c.type === "heredoc_end");
  if (body === undefined) return true;
  // With `<<-` tree-sitter's body starts after the first line's leading tabs.
  const before = src.slice(start.end, body.start).replace(/\t*$/, "");
  return before.endsWith("\n") && !before.includes("\\\n");
}

/** Checks every here-document of a parse against bash's delimiter rules. */
export function checkHeredocs(root: SyntaxNode, src: string): HeredocCheck {
  const found: SyntaxNode[] = [];
  collect(root, found);
  let rewrite: string | null = null;
  let bad = false;
  // Last first, so earlier offsets stay valid while respelling.
  for (let k = found.length - 1; k >= 0; k--) {
    const node = found[k] as SyntaxNode;
    const start = node.children.find((c) => c.type === "heredoc_start");
    if (start === undefined) continue;
    const d = heredocDelimiter(src.slice(start.start, start.end));
    if (d === null) {
      bad = true;
      continue;
    }
    if (!startsWhereBashStarts(node, src, start)) {
      bad = true;
      continue;
    }
    if (agrees(node, src, d.text, !d.quoted)) continue;
    if (!d.quoted || d.text.includes("'") || d.text.includes("\n")) {
      bad = true;
      continue;
    }
    const text: string = rewrite ?? src;
    rewrite = `${text.slice(0, start.start)}'${d.text}'${text.slice(start.end)}`;
  }
  return { rewrite, bad };
}
