import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("examples/function-tool.ts (the library example in docs/toolkit.md)", () => {
  it("builds a Toolkit with a FunctionTool and a logging middleware and runs one call", async () => {
    const { stdout } = await promisify(execFile)("npx", ["tsx", "examples/function-tool.ts"], {
      cwd: root,
      timeout: 60_000,
    });
    const lines = stdout.trim().split("\n");
    expect(JSON.parse(lines[0] ?? "")[0].function.name).toBe("add");
    expect(lines[1]).toBe('[log] -> add {"a":40,"b":2}');
    expect(lines[2]).toMatch(/^\[log\] <- add 1 chunk\(s\) in \d+ ms$/);
    expect(lines[3]).toBe("call_1 success: 40 + 2 = 42");
  }, 60_000);
});
