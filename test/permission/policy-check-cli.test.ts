import { spawnSync } from "node:child_process";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runPolicyCheckCli } from "../../src/cli/policy-check.js";
import { readPolicy } from "../../src/permission/read-policy.js";
import type { PermissionSubject } from "../../src/permission/types.js";
import { writePolicy } from "../../src/permission/write-policy.js";

const FILE_SUBJECTS = new Map<string, PermissionSubject>(
  [readPolicy(), writePolicy()].map((s) => [s.name, s]),
);

async function runInProcess(text: string): Promise<{ code: number; lines: unknown[] }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const chunks: string[] = [];
  stdout.on("data", (c: Buffer) => chunks.push(c.toString("utf8")));
  stdin.end(text);
  const code = await runPolicyCheckCli(stdin, stdout, FILE_SUBJECTS);
  const out = chunks.join("");
  expect(out.endsWith("\n")).toBe(true);
  return {
    code,
    lines: out
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown),
  };
}

describe("runPolicyCheckCli (in process)", () => {
  it("answers one line per input line, in order, skipping blank lines and going on after bad JSON", async () => {
    const input = [
      JSON.stringify({ tool: "Read", input: { file_path: "/workspace/a" }, mode: "explore" }),
      "",
      "{not json",
      "   ",
      JSON.stringify({ tool: "Nope", input: {} }),
      JSON.stringify({ tool: "Write", input: { file_path: "/workspace/a" }, mode: "accept_edits" }),
    ].join("\r\n");
    const { code, lines } = await runInProcess(input);
    expect(code).toBe(0);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({ behavior: "allow", readOnly: true });
    expect(lines[1]).toEqual({
      error: { code: "INVALID_JSON", message: expect.stringMatching(/^Line is not valid JSON: /) },
    });
    expect(lines[2]).toMatchObject({ error: { code: "VALIDATION", details: [{ path: "tool" }] } });
    expect(lines[3]).toMatchObject({ behavior: "allow", tool: { behavior: "allow" } });
  });

  it("answers nothing for empty input", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    stdin.end("");
    expect(await runPolicyCheckCli(stdin, stdout, FILE_SUBJECTS)).toBe(0);
    expect(out).toBe("");
  });
});

describe("toolshed policy check (spawned)", () => {
  it("answers 3 lines in order, one of them invalid", () => {
    const input = [
      JSON.stringify({ tool: "Bash", input: { command: "ls -la" } }),
      "this is not json",
      JSON.stringify({
        tool: "Write",
        input: { file_path: "/workspace/.env" },
        mode: "accept_edits",
        rules: { allow: ["Write(/workspace/**)"] },
        rule: "Write(*.env)",
      }),
    ].join("\n");
    const res = spawnSync("npx", ["tsx", "src/main.ts", "policy", "check"], {
      cwd: new URL("../..", import.meta.url),
      input,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(res.status, res.stderr).toBe(0);
    const lines = res.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      behavior: "allow",
      message: "Permission granted for read-only command",
      reason: "Read-only command is allowed",
      readOnly: true,
    });
    expect(lines[1]).toMatchObject({ error: { code: "INVALID_JSON" } });
    expect(lines[2]).toEqual({
      behavior: "ask",
      bypassImmune: true,
      message: "Permission required: Write operation on sensitive file /workspace/.env",
      reason: "Safety check: dangerous file or directory",
      suggestions: ["Write(/workspace/**)"],
      tool: {
        behavior: "ask",
        bypassImmune: true,
        message: "Permission required: Write operation on sensitive file /workspace/.env",
      },
      readOnly: false,
      toolSuggestions: ["Write(/workspace/**)"],
      match: true,
      explanation: {
        step: "tool check",
        rule: null,
        summary:
          "ask for Write: the tool's own check decided before any allow rule: Permission required: " +
          "Write operation on sensitive file /workspace/.env (Safety check: dangerous file or directory)",
      },
    });
  });
});
