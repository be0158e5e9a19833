import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PermissionContext } from "../../src/permission/types.js";
import { createBuiltinTools } from "../../src/toolkit/builtins.js";
import type { ToolResponse } from "../../src/toolkit/response.js";
import { Toolkit } from "../../src/toolkit/toolkit.js";
import { makeContext, type TestContext } from "./test-context.js";

let t: TestContext;
afterEach(() => t?.sandbox.dispose());

const textOf = (r: ToolResponse) => r.content.map((b) => (b.type === "text" ? b.text : "")).join("");
const permCtx: PermissionContext = {
  mode: "default",
  cwd: "/workspace",
  home: "/home/agent",
  workingDirectories: [],
  rules: { allow: [], deny: [], ask: [] },
};

describe("createBuiltinTools", () => {
  it("gives the six built-ins in the reference order with their flags", () => {
    const tools = createBuiltinTools();
    expect(tools.map((x) => [x.name, x.isReadOnly, x.isConcurrencySafe, x.isStateInjected])).toEqual([
      ["Bash", false, false, false],
      ["Read", true, true, true],
      ["Write", false, false, true],
      ["Edit", false, false, true],
      ["Glob", true, true, false],
      ["Grep", true, true, false],
    ]);
  });

  it("exposes object schemas with the reference parameters and no titles", () => {
    const schemas = new Toolkit({ tools: createBuiltinTools() }).getToolSchemas();
    const params = Object.fromEntries(schemas.map((s) => [s.function.name, s.function.parameters]));
    expect(params.Read).toMatchObject({
      type: "object",
      required: ["file_path"],
      properties: {
        offset: { type: "integer", minimum: 1, default: 1 },
        limit: { maximum: 2000, default: 2000 },
      },
    });
    expect(params.Bash).toMatchObject({
      required: ["command"],
      properties: { timeout: { maximum: 600000 } },
    });
    expect(params.Edit).toMatchObject({ required: ["file_path", "old_string", "new_string"] });
    expect(Object.keys((params.Grep as { properties: object }).properties)).toEqual([
      "pattern",
      "path",
      "output_mode",
      "glob",
      "type",
      "-A",
      "-B",
      "-C",
      "context",
      "n",
      "i",
      "case_insensitive",
      "multiline",
      "head_limit",
      "offset",
    ]);
    expect(JSON.stringify(schemas)).not.toContain('"title"');
    expect(JSON.stringify(schemas)).not.toContain("$schema");
  });

  it("delegates permission faces to src/permission, with the extra dangerous lists", () => {
    const [, read, write, , glob] = createBuiltinTools({ additionalDangerousFiles: [".secrets"] });
    expect(read?.checkPermissions({ file_path: "/workspace/a" }, permCtx)).toMatchObject({
      behavior: "passthrough",
    });
    expect(glob?.checkPermissions({ pattern: "*" }, permCtx)).toMatchObject({ behavior: "passthrough" });
    expect(write?.checkPermissions({ file_path: "/workspace/.secrets" }, permCtx)).toMatchObject({
      behavior: "ask",
      bypassImmune: true,
    });
    expect(write?.generateSuggestions({ file_path: "/workspace/src/a.ts" }, permCtx)).toMatchObject([
      { toolName: "Write" },
    ]);
  });
});

describe("the built-ins through the Toolkit on the fake sandbox", () => {
  // Grep and Glob run programs a fresh host lacks (rg, python3): test/e2e/calls.int.test.ts
  // runs this chain through them in the real sandbox.
  it("Write → Read → Edit → Bash", async () => {
    t = makeContext();
    const kit = new Toolkit({ tools: createBuiltinTools() });
    const call = (name: string, input: Record<string, unknown>) =>
      kit.callTool(name, JSON.stringify(input), t.ctx);
    const p = join(t.sandbox.workspace, "src", "app.ts");

    const w = await call("Write", { file_path: p, content: "export const a = 1;\nexport const b = 2;\n" });
    expect(textOf(w)).toBe(`The file ${p} has been written successfully (2 lines).`);
    expect(textOf(await call("Read", { file_path: p }))).toBe(
      "     1\texport const a = 1;\n     2\texport const b = 2;",
    );
    const e = await call("Edit", { file_path: p, old_string: "b = 2", new_string: "b = 3" });
    expect(textOf(e)).toBe(`Successfully replaced 1 occurrence in ${p}`);

    const b = await call("Bash", { command: "cd src && sed -i 's/a = 1/a = 10/' app.ts && cat app.ts" });
    expect(textOf(b)).toBe("export const a = 10;\nexport const b = 3;\n");
    expect(t.ctx.cwd).toBe(join(t.sandbox.workspace, "src"));
    // The Bash change invalidates the cache entry: the next Edit needs a new Read.
    const stale = await call("Edit", { file_path: p, old_string: "a = 10", new_string: "a = 11" });
    expect(stale.state).toBe("error");
    expect(textOf(stale)).toBe("Error: To edit a file, you must first read it using the Read tool.");
  });

  it("streams Bash output through ctx.onChunk and returns the final response", async () => {
    t = makeContext();
    const kit = new Toolkit({ tools: createBuiltinTools() });
    const r = await kit.callTool("Bash", { command: "echo streamed" }, t.ctx, { callId: "call_1" });
    expect(r).toMatchObject({ id: "call_1", state: "success", metadata: { exitCode: 0 } });
    expect(textOf(r)).toBe("streamed\n");
    expect(t.chunks.some((c) => c.metadata.live === true)).toBe(true);
    expect(t.chunks[t.chunks.length - 1]?.metadata.live).toBeUndefined();
  });
});
