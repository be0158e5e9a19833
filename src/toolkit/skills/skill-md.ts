/**
 * SKILL.md parsing (docs/toolkit.md#skills): YAML front matter between `---` lines, of which only the
 * top-level `name` and `description` are read; the body is the rest, trimmed. A small YAML
 * subset: plain, quoted and block (`|`, `>`) scalars; nested values are skipped.
 */

/** A parsed SKILL.md: front-matter scalars and the trimmed body. */
export interface ParsedSkillMd {
  /** Top-level scalar keys of the front matter (nested values are absent). */
  fields: Record<string, string>;
  body: string;
  hasFrontMatter: boolean;
}

const FENCE = /^---\s*$/;
const END_FENCE = /^(---|\.\.\.)\s*$/;
const KEY_LINE = /^([A-Za-z0-9_-]+):(?:\s+(.*))?$/;

/** Splits front matter and body; text without a leading `---` line is all body. */
export function parseSkillMd(text: string): ParsedSkillMd {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? "")) return { fields: {}, body: text.trim(), hasFrontMatter: false };
  const end = lines.findIndex((line, i) => i > 0 && END_FENCE.test(line));
  if (end < 0) return { fields: {}, body: text.trim(), hasFrontMatter: false };
  return {
    fields: parseFields(lines.slice(1, end)),
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
    hasFrontMatter: true,
  };
}

function parseFields(lines: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  let i = 0;
  while (i < lines.length) {
    const match = KEY_LINE.exec(lines[i] ?? "");
    i += 1;
    if (!match) continue;
    const [, key = "", rawValue = ""] = match;
    const nested: string[] = [];
    while (i < lines.length && (/^\s/.test(lines[i] ?? "") || lines[i] === "")) nested.push(lines[i++] ?? "");
    const value = scalar(rawValue.trim(), nested);
    if (value !== undefined) fields[key] = value;
  }
  return fields;
}

/** One scalar value, or undefined for nested mappings and lists. */
function scalar(raw: string, more: string[]): string | undefined {
  const block = /^([|>])[-+]?$/.exec(raw);
  if (block) return blockScalar(block[1] === "|", more, raw.endsWith("+"), raw.endsWith("-"));
  if (raw === "" || raw.startsWith("#")) return more.some((l) => l.trim()) ? undefined : "";
  if (raw.startsWith('"')) return unquoteDouble(joinFolded(raw, more));
  if (raw.startsWith("'")) return unquoteSingle(joinFolded(raw, more));
  return joinFolded(raw.replace(/\s+#.*$/, ""), more);
}

function joinFolded(first: string, more: string[]): string {
  return [first, ...more.map((l) => l.trim())].filter((l) => l !== "").join(" ");
}

function blockScalar(literal: boolean, lines: string[], keep: boolean, strip: boolean): string {
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  const body = lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0));
  let text = literal ? body.join("\n") : body.join("\n").replace(/([^\n])\n(?=[^\n])/g, "$1 ");
  text = text.replace(/\n+$/, "");
  if (keep) return `${text}\n`;
  return strip ? text : `${text}\n`;
}

function unquoteDouble(raw: string): string {
  const inner = raw.replace(/^"/, "").replace(/"$/, "");
  return inner.replace(/\\(["\\/nt])/g, (_, c: string) => ({ n: "\n", t: "\t" })[c] ?? c);
}

function unquoteSingle(raw: string): string {
  return raw.replace(/^'/, "").replace(/'$/, "").replace(/''/g, "'");
}
