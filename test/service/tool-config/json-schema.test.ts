/** The JSON-schema subset validator: each keyword, with the failing path. */
import { describe, expect, it, vi } from "vitest";
import { schemaProblem, validateJsonSchema } from "../../../src/service/tool-config/json-schema.js";

const schema = {
  type: "object",
  properties: {
    file_path: { type: "string" },
    limit: { type: "integer", minimum: 1, maximum: 2000 },
    mode: { type: "string", enum: ["a", "b"] },
    tags: { type: "array", items: { type: "string" } },
    flag: { type: ["boolean", "null"] },
  },
  required: ["file_path"],
  additionalProperties: false,
};

describe("validateJsonSchema", () => {
  it.each([
    [{ file_path: "/a" }, []],
    [{ file_path: "/a", limit: 5, mode: "a", tags: ["x"], flag: null }, []],
    [{}, ["input.file_path"]],
    [{ file_path: 1 }, ["input.file_path"]],
    [{ file_path: "/a", limit: 0 }, ["input.limit"]],
    [{ file_path: "/a", limit: 2001 }, ["input.limit"]],
    [{ file_path: "/a", limit: 1.5 }, ["input.limit"]],
    [{ file_path: "/a", mode: "c" }, ["input.mode"]],
    [{ file_path: "/a", tags: ["x", 2] }, ["input.tags[1]"]],
    [{ file_path: "/a", extra: 1 }, ["input.extra"]],
    [{ file_path: "/a", flag: "yes" }, ["input.flag"]],
    ["nope", ["input"]],
  ])("%j → %j", (value, paths) => {
    expect(validateJsonSchema(schema, value, "input").map((i) => i.path)).toEqual(paths);
  });
});

describe("validateJsonSchema with the keywords tenants write", () => {
  const order = {
    type: "object",
    $defs: { sku: { type: "string", minLength: 3 } },
    properties: {
      order_id: { type: "string", pattern: "^ORD-[0-9]{6}$" },
      items: { type: "array", minItems: 1, items: { $ref: "#/$defs/sku" } },
      email: { type: "string", format: "email" },
      choice: { anyOf: [{ type: "string" }, { type: "integer" }] },
    },
    required: ["order_id"],
  };

  it("rejects what `pattern` forbids, naming the field", () => {
    const issues = validateJsonSchema(order, { order_id: "DROP TABLE" }, "input");
    expect(issues).toEqual([{ path: "input.order_id", message: "must match the pattern ^ORD-[0-9]{6}$" }]);
    expect(validateJsonSchema(order, { order_id: "ORD-123456" }, "input")).toEqual([]);
  });

  it("honours minItems, $ref and format", () => {
    expect(
      validateJsonSchema(order, { order_id: "ORD-123456", items: [] }, "input").map((i) => i.path),
    ).toEqual(["input.items"]);
    const refd = validateJsonSchema(order, { order_id: "ORD-123456", items: ["abcd", "x"] }, "input");
    expect(refd.map((i) => i.path)).toEqual(["input.items[1]"]);
    const mail = validateJsonSchema(order, { order_id: "ORD-123456", email: "nope" }, "input");
    expect(mail.map((i) => i.path)).toEqual(["input.email"]);
  });

  it("reports a failed anyOf once, and an object key that looks like an index as a key", () => {
    expect(validateJsonSchema(order, { order_id: "ORD-123456", choice: true }, "input")).toEqual([
      { path: "input.choice", message: "does not match any allowed shape" },
    ]);
    const byKey = { type: "object", properties: { "0": { type: "string" } } };
    expect(validateJsonSchema(byKey, { "0": 1 }, "input").map((i) => i.path)).toEqual(["input.0"]);
  });

  it("a 2020-12 schema is read as one; an unusable schema is named, never thrown", () => {
    const s2020 = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "array",
      prefixItems: [{ type: "integer" }],
    };
    expect(validateJsonSchema(s2020, ["x"], "input").map((i) => i.path)).toEqual(["input[0]"]);
    expect(schemaProblem({ $ref: "#/$defs/missing" })).toMatch(/invalid JSON schema/);
    expect(schemaProblem(order)).toBeUndefined();
    expect(validateJsonSchema({ $ref: "#/nope" }, 1, "input")[0]?.path).toBe("input");
  });
});

it("finds a schema object's validator without writing the schema out again; an equal copy shares it", () => {
  const own = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
  expect(validateJsonSchema(own, { n: 1 })).toEqual([]);
  const stringify = vi.spyOn(JSON, "stringify");
  try {
    expect(validateJsonSchema(own, { n: 2 })).toEqual([]);
    expect(validateJsonSchema(own, { n: "x" }, "input")).not.toEqual([]);
    expect(stringify.mock.calls.filter(([v]) => v === own)).toHaveLength(0);
    // Another object with the same text: looked up by its text once, then by itself.
    const copy = structuredClone(own);
    expect(validateJsonSchema(copy, {}, "input")).not.toEqual([]);
    expect(validateJsonSchema(copy, { n: 3 })).toEqual([]);
    expect(stringify.mock.calls.filter(([v]) => v === copy)).toHaveLength(1);
  } finally {
    stringify.mockRestore();
  }
  // An invalid schema is refused each time (nothing kept for it).
  const bad = { type: "object", properties: { n: { type: "no-such-type" } } };
  expect(schemaProblem(bad)).toMatch(/invalid JSON schema/);
  expect(schemaProblem(bad)).toMatch(/invalid JSON schema/);
});
