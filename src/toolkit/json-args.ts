/**
 * Parsing the model's raw argument string (docs/toolkit.md#results-and-chunks): plain JSON first, then
 * `jsonrepair` (unterminated strings, missing closers, trailing commas), and the exact
 * `<system-reminder>` text when the result is still not an object.
 */
import { jsonrepair } from "jsonrepair";
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

/**
 * The `jsonrepair` library's repair (unterminated strings, missing closers, trailing commas, bare
 * keys, …), which never changes the contents of strings that were complete. Throws when the text
 * cannot be repaired, or when repairing it would turn a bare word into a string value: a model
 * that wrote `{"n": undefined}` meant something else and is told so rather than guessed for.
 */
export function repairJson(raw: string): string {
  if (hasBareWord(raw)) throw new SyntaxError("bare word outside strings");
  return jsonrepair(raw);
}

const STRING = /"(?:[^"\\]|\\.)*(?:"|$)/gs;
const LITERAL = /\b(?:true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const KEY = /[{,]\s*[A-Za-z_$][\w$]*\s*:/g;

/** A word outside strings other than true/false/null, a number, or an object key. */
function hasBareWord(raw: string): boolean {
  const outside = raw.replace(STRING, '""').replace(KEY, ",:").replace(LITERAL, "0");
  return /[A-Za-z_$]/.test(outside);
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
