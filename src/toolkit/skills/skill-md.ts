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
  /** The front matter's length when it is over MAX_FRONT_MATTER_LENGTH (then not parsed). */
  tooLong?: number;
  /** Set when the front matter is not valid YAML (the parser's first line). */
  error?: string;
}

const FENCE = /^---\s*$/;
/**
 * The front matter holds a name, a description (at most 1,024 characters) and a few more
 * scalars; `yaml` takes time quadratic in the keys (50,000 took 50 s of the API's one thread).
 */
export const MAX_FRONT_MATTER_LENGTH = 16_384;
const END_FENCE = /^(---|\.\.\.)\s*$/;

/** Splits front matter and body; text without a leading `---` line is all body. */
export function parseSkillMd(text: string): ParsedSkillMd {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? "")) return { fields: {}, body: text.trim(), hasFrontMatter: false };
  const end = lines.findIndex((line, i) => i > 0 && END_FENCE.test(line));
  if (end < 0) return { fields: {}, body: text.trim(), hasFrontMatter: false };
  const front = lines.slice(1, end);
  const length = front.reduce((n, line) => n + line.length + 1, 0);
  const body = lines
    .slice(end + 1)
    .join("\n")
    .trim();
  if (length > MAX_FRONT_MATTER_LENGTH) return { fields: {}, body, hasFrontMatter: true, tooLong: length };
  const { fields, error } = parseFields(front);
  return { fields, ...(error ? { error } : {}), body, hasFrontMatter: true };
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
