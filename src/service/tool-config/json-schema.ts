/**
 * A small JSON-schema validator for the subset tool schemas use: type, enum, const, required,
 * properties, additionalProperties, items, minimum/maximum, minLength/maxLength, anyOf/oneOf.
 * Issues carry the path (`input.file_path`, `input.items[0]`).
 */
import type { ErrorDetail } from "../../errors.js";

type Schema = Record<string, unknown>;

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeMatches(expected: string, v: unknown): boolean {
  const actual = typeOf(v);
  return expected === actual || (expected === "number" && actual === "integer");
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** Validates `value` against `schema`; returns every issue found (empty when valid). */
export function validateJsonSchema(schema: Schema, value: unknown, path = ""): ErrorDetail[] {
  const issues: ErrorDetail[] = [];
  const add = (message: string, at = path) => issues.push({ path: at, message });

  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (
      Array.isArray(options) &&
      !options.some((s) => validateJsonSchema(s as Schema, value, path).length === 0)
    ) {
      add("does not match any allowed shape");
      return issues;
    }
  }
  const types = schema.type === undefined ? [] : [schema.type].flat().map(String);
  if (types.length > 0 && !types.some((t) => typeMatches(t, value))) {
    add(`expected ${types.join(" or ")}, got ${typeOf(value)}`);
    return issues;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value)) {
    add(`must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  if ("const" in schema && schema.const !== value) add(`must be ${JSON.stringify(schema.const)}`);
  if (typeof value === "number") checkNumber(schema, value, add);
  if (typeof value === "string") checkString(schema, value, add);
  if (Array.isArray(value) && schema.items && typeof schema.items === "object") {
    value.forEach((item, i) => {
      issues.push(...validateJsonSchema(schema.items as Schema, item, `${path}[${i}]`));
    });
  }
  if (typeOf(value) === "object") issues.push(...checkObject(schema, value as Record<string, unknown>, path));
  return issues;
}

function checkNumber(schema: Schema, v: number, add: (m: string) => void): void {
  if (typeof schema.minimum === "number" && v < schema.minimum) add(`must be >= ${schema.minimum}`);
  if (typeof schema.maximum === "number" && v > schema.maximum) add(`must be <= ${schema.maximum}`);
  if (typeof schema.exclusiveMinimum === "number" && v <= schema.exclusiveMinimum) {
    add(`must be > ${schema.exclusiveMinimum}`);
  }
  if (typeof schema.exclusiveMaximum === "number" && v >= schema.exclusiveMaximum) {
    add(`must be < ${schema.exclusiveMaximum}`);
  }
}

function checkString(schema: Schema, v: string, add: (m: string) => void): void {
  if (typeof schema.minLength === "number" && v.length < schema.minLength) {
    add(`must be at least ${schema.minLength} characters`);
  }
  if (typeof schema.maxLength === "number" && v.length > schema.maxLength) {
    add(`must be at most ${schema.maxLength} characters`);
  }
}

function checkObject(schema: Schema, obj: Record<string, unknown>, path: string): ErrorDetail[] {
  const issues: ErrorDetail[] = [];
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  for (const name of (schema.required ?? []) as string[]) {
    if (obj[name] === undefined) issues.push({ path: join(path, name), message: "is required" });
  }
  for (const [name, v] of Object.entries(obj)) {
    const sub = props[name];
    if (sub) issues.push(...validateJsonSchema(sub, v, join(path, name)));
    else if (schema.additionalProperties === false) {
      issues.push({ path: join(path, name), message: "is not an allowed property" });
    } else if (typeof schema.additionalProperties === "object" && schema.additionalProperties !== null) {
      issues.push(...validateJsonSchema(schema.additionalProperties as Schema, v, join(path, name)));
    }
  }
  return issues;
}
