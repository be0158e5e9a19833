/**
 * Validates a call's input against a tool's zod schema and words failures like the reference's
 * jsonschema messages (`'file_path' is a required property`, `... is greater than ...`; see
 * docs/toolkit.md#results-and-chunks).
 */
import type { z } from "zod";
import type { ToolInput } from "../permission/types.js";
import type { InputValidation } from "./tool-base.js";

/** Parses `input`; on failure the message names the first problem in jsonschema's words. */
export function validateWithZod(schema: z.ZodType, input: ToolInput): InputValidation {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, input: result.data as ToolInput };
  const issue = result.error.issues[0];
  return { ok: false, message: issue ? describeIssue(issue, input) : result.error.message };
}

/** The agent-level text for a failed validation. */
export function inputValidationFailedText(toolName: string, message: string): string {
  return `Input validation failed for tool '${toolName}': ${message}`;
}

const JSON_TYPES: Record<string, string> = {
  number: "number",
  int: "integer",
  string: "string",
  boolean: "boolean",
  object: "object",
  array: "array",
};

function describeIssue(issue: z.core.$ZodIssue, input: ToolInput): string {
  const value = valueAt(input, issue.path);
  const last = issue.path[issue.path.length - 1];
  switch (issue.code) {
    case "invalid_type":
      if (value === undefined && last !== undefined) return `'${String(last)}' is a required property`;
      return `${repr(value)} is not of type '${JSON_TYPES[issue.expected] ?? issue.expected}'`;
    case "too_big":
      return `${repr(value)} is greater than the maximum of ${String(issue.maximum)}`;
    case "too_small":
      return `${repr(value)} is less than the minimum of ${String(issue.minimum)}`;
    case "invalid_value":
      return `${repr(value)} is not one of ${issue.values.map((v) => repr(v)).join(", ")}`;
    default:
      return issue.path.length ? `${issue.message} (at ${issue.path.join(".")})` : issue.message;
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const key of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function repr(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : (JSON.stringify(value) ?? String(value));
}
