/** The JSON-schema subset validator: each keyword, with the failing path. */
import { describe, expect, it } from "vitest";
import { validateJsonSchema } from "../../../src/service/tool-config/json-schema.js";

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
