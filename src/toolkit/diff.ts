/**
 * A small line-based unified diff (3 context lines by default) for the `diff` metadata of Write
 * and Edit, in difflib/git form: `--- a/p`, `+++ b/p` (or `--- /dev/null` for a new file).
 */

type Op = { kind: " " | "-" | "+"; text: string };

/** Past this many LCS cells the changed middle is shown as a whole replacement. */
const MAX_LCS_CELLS = 4_000_000;

/** Splits text into lines that keep their `\n`. */
export function splitKeepNewline(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The unified diff of `before` → `after` for `path`; `before` null means a new file; "" when equal. */
export function unifiedDiff(path: string, before: string | null, after: string, context = 3): string {
  const ops = diffLines(splitKeepNewline(before ?? ""), splitKeepNewline(after));
  const hunks = groupHunks(ops, context);
  if (hunks.length === 0) return "";
  const header = `--- ${before === null ? "/dev/null" : `a/${path}`}\n+++ b/${path}\n`;
  return header + hunks.map((h) => formatHunk(ops, h)).join("");
}

function diffLines(a: string[], b: string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf])
    suf++;
  const midA = a.slice(pre, a.length - suf);
  const midB = b.slice(pre, b.length - suf);
  const same = (lines: string[]): Op[] => lines.map((text) => ({ kind: " ", text }));
  return [...same(a.slice(0, pre)), ...diffMiddle(midA, midB), ...same(a.slice(a.length - suf))];
}

function diffMiddle(a: string[], b: string[]): Op[] {
  const del = a.map((text): Op => ({ kind: "-", text }));
  const add = b.map((text): Op => ({ kind: "+", text }));
  if (a.length === 0 || b.length === 0 || (a.length + 1) * (b.length + 1) > MAX_LCS_CELLS) {
    return [...del, ...add];
  }
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] =
        a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let [i, j] = [0, 0];
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ kind: " ", text: a[i++]! });
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) {
      ops.push(del[i++]!);
    } else {
      ops.push(add[j++]!);
    }
  }
  return [...ops, ...del.slice(i), ...add.slice(j)];
}

/** [start, end) op ranges, each a run of changes with up to `context` lines around it. */
function groupHunks(ops: Op[], context: number): Array<[number, number]> {
  const hunks: Array<[number, number]> = [];
  for (let k = 0; k < ops.length; k++) {
    if (ops[k]!.kind === " ") continue;
    const start = Math.max(0, k - context);
    const end = Math.min(ops.length, k + 1 + context);
    const last = hunks[hunks.length - 1];
    if (last && start <= last[1]) last[1] = end;
    else hunks.push([start, end]);
  }
  return hunks;
}

function formatHunk(ops: Op[], [start, end]: [number, number]): string {
  const count = (from: number, to: number, kind: Op["kind"]): number =>
    ops.slice(from, to).filter((o) => o.kind === " " || o.kind === kind).length;
  const oldLen = count(start, end, "-");
  const newLen = count(start, end, "+");
  const head = `@@ -${range(count(0, start, "-"), oldLen)} +${range(count(0, start, "+"), newLen)} @@\n`;
  const body = ops
    .slice(start, end)
    .map((o) => `${o.kind}${o.text}${o.text.endsWith("\n") ? "" : "\n\\ No newline at end of file\n"}`);
  return head + body.join("");
}

/** difflib's `_format_range_unified`. */
function range(before: number, length: number): string {
  if (length === 1) return `${before + 1}`;
  return length === 0 ? `${before},0` : `${before + 1},${length}`;
}
