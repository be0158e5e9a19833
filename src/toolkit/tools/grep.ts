/**
 * The `Grep` tool (docs/tools.md#grep): ripgrep in the sandbox over the given path
 * (default: the session's working directory), with the reference's pagination.
 */
import { z } from "zod";
import { expandHome } from "../../permission/paths.js";
import { grepPolicy } from "../../permission/search-policy.js";
import type { ExecResult } from "../../sandbox/sandbox.js";
import { textChunk } from "../response.js";
import type { ToolRunContext } from "../run-context.js";
import type { ToolCallOutput } from "../tool-base.js";
import { INTERRUPTED_TEXT } from "../toolkit-errors.js";
import { BuiltinTool, type BuiltinToolOptions, errorChunk } from "./builtin-tool.js";
import { buildRgArgv } from "./grep-args.js";
import { argumentField, pathOperandField } from "./operands.js";

const GREP_TIMEOUT_MS = 30_000;
const DEFAULT_HEAD_LIMIT = 250;

const optionalInt = (description: string) => z.number().int().min(0).optional().describe(description);

/** Grep's input. */
export const GrepInput = z.object({
  pattern: argumentField().describe("The regular expression pattern to search for in file contents"),
  path: pathOperandField()
    .optional()
    .describe(
      "File or directory to search in (rg PATH). Defaults to the session's current working directory.",
    ),
  output_mode: z
    .enum(["content", "files_with_matches", "count"])
    .default("files_with_matches")
    .describe(
      'Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). Defaults to "files_with_matches".',
    ),
  glob: argumentField()
    .optional()
    .describe('Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob'),
  type: argumentField()
    .optional()
    .describe("File type to search (rg --type). Common types: js, py, rust, go, java, etc."),
  "-A": optionalInt('Number of lines to show after each match (rg -A). Requires output_mode: "content".'),
  "-B": optionalInt('Number of lines to show before each match (rg -B). Requires output_mode: "content".'),
  "-C": optionalInt(
    'Number of lines to show before and after each match (rg -C). Requires output_mode: "content".',
  ),
  context: optionalInt('Alias of -C; takes precedence over it. Requires output_mode: "content".'),
  n: z
    .boolean()
    .default(true)
    .describe('Show line numbers in output (rg -n). Requires output_mode: "content".'),
  i: z.boolean().default(false).describe("Case insensitive search (rg -i)"),
  case_insensitive: z.boolean().default(false).describe("Alias of i."),
  multiline: z
    .boolean()
    .default(false)
    .describe(
      "Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall).",
    ),
  head_limit: optionalInt(
    `Limit output to the first N lines/entries after offset. Defaults to ${DEFAULT_HEAD_LIMIT}; 0 means no limit.`,
  ),
  offset: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe("Skip the first N lines/entries before applying head_limit."),
});

const DESCRIPTION = `A powerful search tool built on ripgrep.

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke \`grep\` or \`rg\` as a Bash command.
- Supports full regex syntax (e.g., "log.*Error", "function\\s+\\w+")
- Filter files with the glob parameter (e.g., "*.js", "**/*.tsx") or the type parameter (e.g., "js", "py", "rust")
- Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default), "count" shows match counts
- Pattern syntax: uses ripgrep (not grep) - literal braces need escaping (use \`interface\\{\\}\` to find \`interface{}\` in Go code)
- Multiline matching: by default patterns match within single lines only. For cross-line patterns like \`struct \\{[\\s\\S]*?field\`, use \`multiline: true\`
- Searches the session's working directory unless path is given. Hidden files are searched; .git and other version-control directories are skipped. Lines longer than 500 characters are elided
- At most ${DEFAULT_HEAD_LIMIT} lines/entries are returned by default; use head_limit (0 for no limit) and offset to page through more
- A search that runs longer than 30 seconds is stopped`;

/** Searches file contents with ripgrep. */
export class GrepTool extends BuiltinTool<typeof GrepInput> {
  readonly name = "Grep";
  readonly description = DESCRIPTION;
  readonly isConcurrencySafe = true;
  readonly isReadOnly = true;

  constructor(opts: BuiltinToolOptions = {}) {
    super(GrepInput, opts.permission ?? grepPolicy(), opts);
  }

  protected async run(input: z.output<typeof GrepInput>, ctx: ToolRunContext): Promise<ToolCallOutput> {
    let result: ExecResult;
    try {
      result = await ctx.sandbox.exec({
        // An empty path means the working directory, as the permission policy reads it.
        argv: buildRgArgv(input, expandHome(input.path || ctx.cwd, ctx.home)),
        cwd: ctx.cwd,
        timeoutMs: GREP_TIMEOUT_MS,
        maxOutputBytes: 8 * 1024 * 1024,
        signal: ctx.signal,
        // A search only reads: it runs as an identity that cannot write.
        identity: "reader",
      });
    } catch (error) {
      return errorChunk(`ripgrep failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (result.cancelled) return textChunk(INTERRUPTED_TEXT, { state: "interrupted" });
    if (result.timedOut) {
      return errorChunk(
        "Ripgrep search timed out after 30 seconds. Try searching a more specific path or pattern.",
      );
    }
    if (result.exitCode !== 0 && result.exitCode !== 1) {
      return errorChunk(`ripgrep error (code ${result.exitCode}): ${result.stderr}`);
    }
    const lines = result.stdout
      .split("\n")
      .map((l) => l.replace(/\r$/, ""))
      .filter((l) => l !== "");
    if (lines.length === 0)
      return textChunk(`No matches found for pattern: ${input.pattern}`, { state: "success" });
    return textChunk(paginate(lines, input.head_limit, input.offset), { state: "success" });
  }
}

/** `[offset : offset+limit]` plus the reference's pagination suffix when cut. */
function paginate(lines: string[], headLimit: number | undefined, offset: number): string {
  const limit =
    headLimit === undefined ? DEFAULT_HEAD_LIMIT : headLimit === 0 ? Number.POSITIVE_INFINITY : headLimit;
  const shown = lines.slice(offset, offset + limit).join("\n");
  if (lines.length - offset <= limit) return shown;
  return `${shown}\n\n[Showing results with pagination = limit: ${limit}${offset > 0 ? `, offset: ${offset}` : ""}]`;
}
