/**
 * Tool input schemas checked with Ajv (draft-07 by default, 2020-12 when the schema says so, with
 * `ajv-formats`): every keyword a tenant may write (`pattern`, `minItems`, `$ref`, …) is honoured.
 * Issues carry the path in the API's form (`input.file_path`, `input.items[0]`).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ErrorDetail } from "../../errors.js";
import { linearRegExp } from "./linear-pattern.js";
import { expandedSchemaSize } from "./schema-size.js";

type Schema = Record<string, unknown>;

// ajv-formats is CommonJS with a default export; under NodeNext its namespace is what we get.
const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => void;

// Tool schemas come from models' ecosystems (MCP servers, tenants): unknown keywords are
// annotations there, so strict mode is off; every error is collected for the 400's details.
// `pattern` runs with RE2 (linear-pattern.ts), never a backtracking RegExp.
const OPTIONS = { strict: false, allErrors: true, logger: false, code: { regExp: linearRegExp } } as const;
const draft7 = new Ajv(OPTIONS);
const draft2020 = new Ajv2020(OPTIONS);
addFormats(draft7);
addFormats(draft2020);

const DRAFT_2020 = /json-schema\.org\/draft\/(2019-09|2020-12)\/schema/;

/** Compiled validators by schema text; bounded, oldest dropped first. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 1000;
/** Subschemas one validation may visit, `$ref`s expanded (schema-size.ts). */
const MAX_EXPANDED_SUBSCHEMAS = 100_000;

/**
 * The validators of schema objects met before: a tool's schema is one object for the tool's life
 * (built once, never changed), so a call finds its validator without writing the schema out as
 * text again (JSON.stringify per call was ~1 % of a warm Read's CPU). Weak: a schema dropped with
 * its tool takes its entry along; the text map still shares one validator between equal copies.
 */
const byObject = new WeakMap<Schema, ValidateFunction>();

/** The compiled validator, or throws Ajv's reason when the schema itself is invalid. */
function validatorFor(schema: Schema): ValidateFunction {
  const known = byObject.get(schema);
  if (known) return known;
  const fn = validatorForText(schema);
  byObject.set(schema, fn);
  return fn;
}

function validatorForText(schema: Schema): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = compiled.get(key);
  if (hit) return hit;
  if (expandedSchemaSize(schema, MAX_EXPANDED_SUBSCHEMAS) > MAX_EXPANDED_SUBSCHEMAS)
    throw new Error(
      `it expands to more than ${MAX_EXPANDED_SUBSCHEMAS} subschemas through $ref (one validation would check them all)`,
    );
  const uses2020 = typeof schema.$schema === "string" && DRAFT_2020.test(schema.$schema);
  // A `$schema` Ajv does not know would make it refuse the schema; the keywords are what count.
  const { $schema: _ignored, ...rest } = schema;
  const fn = uses2020 ? draft2020.compile(rest) : draft7.compile(rest);
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, fn);
  return fn;
}

/** Why `schema` cannot be used as a tool's input schema, or undefined when it can. */
export function schemaProblem(schema: Schema): string | undefined {
  try {
    validatorFor(schema);
    return undefined;
  } catch (err) {
    return `invalid JSON schema: ${(err as Error).message}`;
  }
}

/** Validates `value` against `schema`; returns every issue found (empty when valid). */
export function validateJsonSchema(schema: Schema, value: unknown, path = ""): ErrorDetail[] {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (err) {
    return [{ path, message: `the tool's input schema cannot be used: ${(err as Error).message}` }];
  }
  if (validate(value)) return [];
  const errors = withoutBranchNoise(validate.errors ?? []);
  const seen = new Set<string>();
  const issues: ErrorDetail[] = [];
  for (const e of errors) {
    const issue = toIssue(e, value, path);
    const key = `${issue.path}\0${issue.message}`;
    if (!seen.has(key)) issues.push(issue);
    seen.add(key);
  }
  return issues;
}

/** An `anyOf`/`oneOf` that failed reports once, not once per branch it tried. */
function withoutBranchNoise(errors: ErrorObject[]): ErrorObject[] {
  const branches = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  return errors.filter((e) => !branches.some((b) => b !== e && e.schemaPath.startsWith(`${b.schemaPath}/`)));
}

function toIssue(e: ErrorObject, value: unknown, base: string): ErrorDetail {
  const at = apiPath(e.instancePath, value, base);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return { path: join(at, String(p.missingProperty)), message: "is required" };
    case "additionalProperties":
      return { path: join(at, String(p.additionalProperty)), message: "is not an allowed property" };
    case "enum":
      return {
        path: at,
        message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    case "anyOf":
    case "oneOf":
      return { path: at, message: "does not match any allowed shape" };
    case "pattern":
      return { path: at, message: `must match the pattern ${String(p.pattern)}` };
    default:
      return { path: at, message: e.message ?? `fails ${e.keyword}` };
  }
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** `/items/0/name` → `input.items[0].name`: array indexes in brackets, looked up in the value. */
function apiPath(pointer: string, value: unknown, base: string): string {
  let path = base;
  let node = value;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    path = Array.isArray(node) ? `${path}[${key}]` : join(path, key);
    node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return path;
}
