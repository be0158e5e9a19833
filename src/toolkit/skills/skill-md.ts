/**
 * SKILL.md parsing (docs/toolkit.md#skills): YAML front matter between `---` lines (read with the
 * `yaml` library), of which only top-level scalars are kept; the body is the rest, trimmed.
 */
import { parse } from "yaml";

/** A parsed SKILL.md: front-matter scalars and the trimmed body. */
export interface ParsedSkillMd {
  /** Top-level scalar keys of the front matter (nested values are absent). */
  fields: Record<string, string>;
  body: string;
  hasFrontMatter: boolean;
  /** Set when the front matter is not valid YAML (the parser's first line). */
  error?: string;
}

const FENCE = /^---\s*$/;
const END_FENCE = /^(---|\.\.\.)\s*$/;

/** Splits front matter and body; text without a leading `---` line is all body. */
export function parseSkillMd(text: string): ParsedSkillMd {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? "")) return { fields: {}, body: text.trim(), hasFrontMatter: false };
  const end = lines.findIndex((line, i) => i > 0 && END_FENCE.test(line));
  if (end < 0) return { fields: {}, body: text.trim(), hasFrontMatter: false };
  const { fields, error } = parseFields(lines.slice(1, end));
  return {
    fields,
    ...(error ? { error } : {}),
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
    hasFrontMatter: true,
  };
}

/**
 * Top-level scalar entries of the front matter, parsed by `yaml` with the failsafe schema so that
 * every scalar stays the text it was written as (`version: 1.0` is "1.0", not 1).
 */
function parseFields(lines: string[]): { fields: Record<string, string>; error?: string } {
  let doc: unknown;
  try {
    doc = parse(lines.join("\n"), { schema: "failsafe" });
  } catch (err) {
    return { fields: {}, error: (err as Error).message.split("\n")[0] };
  }
  const fields: Record<string, string> = {};
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return { fields };
  for (const [key, value] of Object.entries(doc)) {
    if (typeof value === "string") fields[key] = value;
    else if (value === null) fields[key] = "";
  }
  return { fields };
}
