/**
 * No input becomes an option: for random inputs that start with `-` or hold `=` and newlines,
 * each tool that runs a program either refuses the input with a clear validation error (and runs
 * nothing) or builds an argv in which every element taken from input is an option's value or an
 * operand after `--`. Asserted on the argv the tool hands the sandbox, read as the program would.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expandHome } from "../../../src/permission/paths.js";
import type { ToolInput } from "../../../src/permission/types.js";
import type { ExecRequest, Sandbox } from "../../../src/sandbox/sandbox.js";
import type { ToolRunContext } from "../../../src/toolkit/run-context.js";
import { BashTool } from "../../../src/toolkit/tools/bash.js";
import { trackCwd } from "../../../src/toolkit/tools/bash-cwd.js";
import { GLOB_ARGV, GlobTool } from "../../../src/toolkit/tools/glob.js";
import { GrepTool } from "../../../src/toolkit/tools/grep.js";
import { splitGlobs } from "../../../src/toolkit/tools/grep-args.js";
import { argumentProblem, pathOperandProblem } from "../../../src/toolkit/tools/operands.js";
import { type ArgRole, readArgv } from "../../support/argv-shape.js";
import { execResult } from "../../support/fake-sandbox.js";
import { runTool } from "../run-tool.js";
import { contextFor } from "../test-context.js";

const RUNS = 400;

/** Strings an attacker would try: option-shaped, with `=`, newlines, NUL, or just anything. */
const hostile = fc.oneof(
  fc.string(),
  fc.string().map((s) => `-${s}`),
  fc.tuple(fc.string(), fc.string()).map(([a, b]) => `--${a}=${b}`),
  fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}\n${b}`),
  fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}=${b}`),
  fc.constantFrom(
    "--pre=bash",
    "--pre=sh",
    "-e",
    "--",
    "-",
    "=",
    "\n--pre=sh",
    "-x\0",
    "./-x",
    "--files",
    "~",
    "~/-x",
  ),
);

/** A sandbox that runs nothing: it records each exec and answers "no matches". */
function recordingContext(): { ctx: ToolRunContext; execs: ExecRequest[] } {
  const execs: ExecRequest[] = [];
  const sandbox: Sandbox = {
    sessionId: "ses_prop",
    exec: async (req) => {
      execs.push(req);
      return execResult({ exitCode: 1 });
    },
    readFile: () => Promise.reject(new Error("no files here")),
    writeFile: () => Promise.reject(new Error("no files here")),
    stat: async () => ({ type: "directory", size: 0, mtimeMs: 0 }),
    realPath: async (p) => p,
  };
  return { ctx: contextFor(sandbox), execs };
}

/** The first problem validation must report for these fields, or null when the input is fine. */
function refusal(fields: Record<string, string | undefined>, paths: string[]): string | null {
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const problem = paths.includes(name) ? pathOperandProblem(value) : argumentProblem(value);
    if (problem) return problem;
  }
  return null;
}

const options = (roles: ArgRole[]) => roles.filter((r) => r.role === "option");
const valuesOf = (roles: ArgRole[], name: string) =>
  roles.flatMap((r) =>
    r.role === "option" && r.name === name && r.value !== undefined
      ? [r.value]
      : r.role === "value" && r.of === name
        ? [r.text]
        : [],
  );

describe("Grep: no input becomes a ripgrep option", () => {
  const RG_TAKES_VALUE = new Set(["--glob", "--max-columns", "-C", "-A", "-B", "--type", "--regexp", "-e"]);
  const RG_FLAGS = new Set(["--no-config", "--hidden", "-U", "--multiline-dotall", "-i", "-l", "-c", "-n"]);
  const grep = new GrepTool();

  it("refuses the input or keeps every input element a value or an operand after --", async () => {
    const input = fc.record(
      {
        pattern: hostile,
        path: hostile,
        glob: hostile,
        type: hostile,
        output_mode: fc.constantFrom("content", "files_with_matches", "count"),
        "-C": fc.nat(20),
        multiline: fc.boolean(),
        i: fc.boolean(),
      },
      { requiredKeys: ["pattern"] },
    );
    await fc.assert(
      fc.asyncProperty(input, async (given) => {
        const { ctx, execs } = recordingContext();
        const r = await runTool(grep, given as ToolInput, ctx);
        const problem = refusal(
          { pattern: given.pattern, path: given.path, glob: given.glob, type: given.type },
          ["path"],
        );
        if (problem) {
          expect(r.state).toBe("error");
          expect(r.text).toContain(problem);
          expect(execs).toEqual([]);
          return;
        }
        const argv = execs[0]?.argv ?? [];
        expect(argv[0]).toBe("rg");
        const roles = readArgv(argv, RG_TAKES_VALUE);
        for (const o of options(roles)) expect(RG_FLAGS.has(o.name) || RG_TAKES_VALUE.has(o.name)).toBe(true);
        expect(valuesOf(roles, "--regexp")).toEqual([given.pattern]);
        expect(valuesOf(roles, "-e")).toEqual([]);
        expect(valuesOf(roles, "--type")).toEqual(given.type ? [given.type] : []);
        expect(valuesOf(roles, "--glob").slice(6)).toEqual(splitGlobs(given.glob));
        // Exactly `-- <path>` at the end, and no operand before it (rg would take it as a path).
        const end = roles.findIndex((x) => x.role === "end");
        expect(end).toBe(roles.length - 2);
        expect(roles.filter((x) => x.role === "operand")).toEqual([
          { role: "operand", afterEnd: true, text: expandHome(given.path || ctx.cwd, ctx.home) },
        ]);
      }),
      { numRuns: RUNS },
    );
  });

  it("answers the --pre=bash attack with a validation error naming the path", async () => {
    const { ctx, execs } = recordingContext();
    const r = await runTool(grep, { pattern: "x", path: "--pre=bash" }, ctx);
    expect(r.state).toBe("error");
    expect(r.text).toBe(
      "Input validation failed for tool 'Grep': '--pre=bash' starts with '-' and would be read as an option, not a path; write './--pre=bash' for a file whose name starts with '-' (at path)",
    );
    expect(execs).toEqual([]);
  });
});

describe("Glob: no input reaches the helper's argv", () => {
  const glob = new GlobTool();

  it("refuses the input or runs the fixed argv with the input as JSON on stdin", async () => {
    const input = fc.record({ pattern: hostile, path: hostile }, { requiredKeys: ["pattern"] });
    await fc.assert(
      fc.asyncProperty(input, async (given) => {
        const { ctx, execs } = recordingContext();
        const r = await runTool(glob, given as ToolInput, ctx);
        const problem = refusal({ pattern: given.pattern, path: given.path }, ["path"]);
        if (problem) {
          expect(r.state).toBe("error");
          expect(r.text).toContain(problem);
          expect(execs).toEqual([]);
          return;
        }
        expect(execs[0]?.argv).toEqual([...GLOB_ARGV]);
        const sent = JSON.parse(execs[0]?.stdin ?? "null") as { pattern: string; base: string };
        expect(sent.pattern).toBe(given.pattern);
        expect(sent.base.startsWith("/")).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it("runs python isolated (-I), so a module planted in the workspace is never imported", () => {
    expect(readArgv(GLOB_ARGV, new Set(["-c"])).slice(0, 2)).toEqual([
      { role: "option", name: "-I" },
      { role: "option", name: "-c" },
    ]);
  });
});

describe("Bash: the command is bash's command string, never its options", () => {
  const bash = new BashTool();

  it("refuses a NUL, and passes any other command as the operand after -c", async () => {
    await fc.assert(
      fc.asyncProperty(hostile, async (command) => {
        const { ctx, execs } = recordingContext();
        const r = await runTool(bash, { command }, ctx);
        const problem = argumentProblem(command);
        if (problem) {
          expect(r.text).toContain(problem);
          expect(execs).toEqual([]);
          return;
        }
        const argv = execs[0]?.argv ?? [];
        expect(argv.slice(0, 2)).toEqual(["bash", "-c"]);
        expect(readArgv(argv, new Set())).toEqual([
          { role: "option", name: "-c" },
          { role: "operand", afterEnd: false, text: argv[2] },
        ]);
        expect(argv[2]).toBe(trackCwd(command));
        expect(argv).toHaveLength(3);
      }),
      { numRuns: RUNS },
    );
  });
});
