/**
 * JSON schemas shown to the model: zod → JSON Schema for tools declared with zod, and the
 * reference's title stripping for `getToolSchemas`.
 */
import { z } from "zod";
import type { JsonSchemaObject } from "./tool-base.js";

/** One entry of `getToolSchemas()`. */
export interface ToolSchema {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The input JSON schema of a zod object, without `$schema` and zod's safe-integer bounds. */
export function zodToInputSchema(schema: z.ZodType): JsonSchemaObject {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  dropSafeIntegerBounds(json);
  return json as JsonSchemaObject;
}

function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropSafeIntegerBounds(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const obj = node as Record<string, unknown>;
  if (obj.minimum === Number.MIN_SAFE_INTEGER) delete obj.minimum;
  if (obj.maximum === Number.MAX_SAFE_INTEGER) delete obj.maximum;
  for (const value of Object.values(obj)) dropSafeIntegerBounds(value);
}

/**
 * A deep copy without `title` keys at the top level, in each property, in `items`, in
 * `additionalProperties` and in each `$defs` entry; `anyOf`/`oneOf` branches keep theirs.
 */
export function stripTitles(schema: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(schema);
  stripIn(copy);
  return copy;
}

function stripIn(node: unknown): void {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return;
  const obj = node as Record<string, unknown>;
  delete obj.title;
  for (const key of ["properties", "$defs"] as const) {
    const children = obj[key];
    if (typeof children === "object" && children !== null) {
      for (const child of Object.values(children)) stripIn(child);
    }
  }
  stripIn(obj.items);
  stripIn(obj.additionalProperties);
}
