/**
 * The `Glob` tool (docs/tools.md#glob): finds files by pattern under a base
 * directory (default: the session's working directory), newest first, capped, braces expanded.
 */
import { z } from "zod";
import { normalizePath } from "../../permission/paths.js";
import { globPolicy } from "../../permission/search-policy.js";
import type { ExecResult } from "../../sandbox/sandbox.js";
import { textChunk } from "../response.js";
import type { ToolRunContext } from "../run-context.js";
import type { ToolCallOutput } from "../tool-base.js";
import { INTERRUPTED_TEXT } from "../toolkit-errors.js";
import { BuiltinTool, type BuiltinToolOptions, errorChunk } from "./builtin-tool.js";
import { GLOB_HELPER_SOURCE } from "./glob-helper.js";
import { argumentField, pathOperandField } from "./operands.js";

/** Most paths returned by one Glob call. */
export const GLOB_MAX_RESULTS = 1000;
const GLOB_TIMEOUT_MS = 30_000;
/**
 * No input in the argv: it travels as JSON on stdin. `-I` keeps the working directory (the
 * agent's workspace) off `sys.path`, so a planted `json.py` is never imported.
 */
export const GLOB_ARGV = ["python3", "-I", "-c", GLOB_HELPER_SOURCE] as const;

/** Glob's input. */
export const GlobInput = z.object({
  pattern: argumentField().describe("The glob pattern to match files against"),
  path: pathOperandField()
    .optional()
    .describe(
      "The directory to search in. If not specified, the session's current working directory will be used. Must be a valid directory path if provided.",
    ),
});

const DESCRIPTION = `Fast file pattern matching tool.

- Supports glob patterns like "**/*.js" or "src/**/*.ts"; "**" matches any number of directories, "*" any characters within one name (dotfiles included), "?" one character, and braces like "*.{ts,tsx}" list alternatives
- Returns absolute paths of matching files (not directories), sorted by modification time, newest first
- At most ${GLOB_MAX_RESULTS} paths are returned; the result says when more files matched
- Patterns are relative to the path parameter, which defaults to the session's working directory
- Symbolic links to directories are not followed
- Use this tool when you need to find files by name patterns`;

type GlobOutput = { files: string[]; total: number };

/** Finds files by glob pattern. */
export class GlobTool extends BuiltinTool<typeof GlobInput> {
  readonly name = "Glob";
  readonly description = DESCRIPTION;
  readonly isConcurrencySafe = true;
  readonly isReadOnly = true;

  constructor(opts: BuiltinToolOptions = {}) {
    super(GlobInput, opts.permission ?? globPolicy(), opts);
  }

  protected async run(input: z.output<typeof GlobInput>, ctx: ToolRunContext): Promise<ToolCallOutput> {
    const base = normalizePath(input.path || ctx.cwd, ctx.cwd, ctx.home);
    const realBase = await ctx.sandbox.realPath(base).catch(() => base);
    const stat = await ctx.sandbox.stat(realBase).catch(() => null);
    if (stat?.type !== "directory") return errorChunk(`Directory not found: ${base}`);

    let result: ExecResult;
    try {
      result = await ctx.sandbox.exec({
        argv: [...GLOB_ARGV],
        stdin: JSON.stringify({ pattern: input.pattern, base, limit: GLOB_MAX_RESULTS }),
        cwd: ctx.cwd,
        timeoutMs: GLOB_TIMEOUT_MS,
        maxOutputBytes: 8 * 1024 * 1024,
        signal: ctx.signal,
        // A search only reads: it runs as an identity that cannot write.
        identity: "reader",
      });
    } catch (error) {
      return errorChunk(`Glob helper failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (result.cancelled) return textChunk(INTERRUPTED_TEXT, { state: "interrupted" });
    if (result.timedOut) {
      return errorChunk("Glob timed out after 30 seconds. Try a more specific pattern or path.");
    }
    if (result.exitCode !== 0) {
      const stderr = result.stderr.trim();
      return errorChunk(
        stderr ? `Glob helper failed: ${stderr}` : "Glob helper failed with no error output.",
      );
    }
    const { files, total } = parseOutput(result.stdout);
    if (files.length === 0) return textChunk(`No files found matching pattern: ${input.pattern}`);
    const note =
      total > files.length
        ? `\n\n[Showing the ${files.length} most recently modified of ${total} matching files. Use a more specific pattern or path to narrow the search.]`
        : "";
    return textChunk(files.join("\n") + note);
  }
}

/** Unparseable output counts as no matches, as in the reference. */
function parseOutput(stdout: string): GlobOutput {
  try {
    const parsed = JSON.parse(stdout) as Partial<GlobOutput>;
    const files = Array.isArray(parsed.files) ? parsed.files.filter((f) => typeof f === "string") : [];
    return { files, total: typeof parsed.total === "number" ? parsed.total : files.length };
  } catch {
    return { files: [], total: 0 };
  }
}
