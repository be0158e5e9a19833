/**
 * Parsing the model's raw argument string (docs/toolkit.md#results-and-chunks): plain JSON first, then a
 * small lenient repair (unterminated strings, missing closers, trailing commas), and the exact
 * `<system-reminder>` text when the result is still not an object.
 */
import type { ToolInput } from "../permission/types.js";

/** The parsed object, or the reminder text (without the `ToolJSONDecodeError: ` prefix). */
export type ParsedArgs = { ok: true; input: ToolInput } | { ok: false; reminder: string };

/** Parses the raw input; an already-parsed object passes through unchanged. */
export function parseToolArguments(raw: string | ToolInput): ParsedArgs {
  if (typeof raw !== "string") return checkObject(raw, JSON.stringify(raw));
  let value: unknown;
  try {
    value = JSON.parse(raw === "" ? "{}" : raw);
  } catch (error) {
    try {
      value = JSON.parse(repairJson(raw));
    } catch {
      const msg = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        reminder: reminderText(
          `Error: When decoding your tool arguments from JSON format to a Python dictionary, a JSONDecodeError was raised with message: ${msg}.`,
          raw,
        ),
      };
    }
  }
  return checkObject(value, raw);
}

function checkObject(value: unknown, raw: string): ParsedArgs {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return { ok: true, input: value as ToolInput };
  }
  const kind = Array.isArray(value) ? "list" : pythonTypeName(value);
  return {
    ok: false,
    reminder: reminderText(
      `Error: Your argument string is decoded into a <class '${kind}'> object, but a dict object is expected!`,
      raw,
    ),
  };
}

function pythonTypeName(value: unknown): string {
  if (value === null) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  return typeof value;
}

/** Closes an unterminated string and any open brackets, and drops trailing commas. */
export function repairJson(raw: string): string {
  const closers: string[] = [];
  let inString = false;
  let escaped = false;
  for (const ch of raw) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") closers.push("}");
    else if (ch === "[") closers.push("]");
    else if (ch === "}" || ch === "]") closers.pop();
  }
  let out = raw.trimEnd();
  if (inString) out += escaped ? '\\"' : '"';
  out += closers.reverse().join("");
  return out.replace(/,\s*([}\]])/g, "$1");
}

const TRUNCATE_HINT =
  ' (Because the JSON string is too long, a truncated label "[TRUNCATE]" is used here to indicate the truncation)';

function reminderText(reason: string, raw: string): string {
  const long = raw.length > 200;
  const shown = long ? `${raw.slice(0, 100)}[TRUNCATE]${raw.slice(-100)}` : raw;
  return [
    `<system-reminder>${reason}`,
    "",
    `Your argument string is decoded by the following code snippet${long ? TRUNCATE_HINT : ""}:`,
    "```python",
    "import json",
    "",
    `your_tool_arguments = ${pythonRepr(shown)}`,
    "json.loads(your_tool_arguments)",
    "```",
    "",
    "**You should recorrect the arguments in JSON format.**</system-reminder>",
  ].join("\n");
}

/** Python's repr of a str: single quotes unless the text has ' and no ". */
function pythonRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s
    .replace(/\\/g, "\\\\")
    .replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r")
    .replace(/\t/g, "\\t")
    .replaceAll(quote, `\\${quote}`);
  return `${quote}${body}${quote}`;
}
