/**
 * The `Read` tool (docs/tools.md#read): reads a text file in the sandbox in
 * `cat -n` form and records it in the session's read cache for Write and Edit.
 */
import { posix } from "node:path";
import { z } from "zod";
import { readPolicy } from "../../permission/read-policy.js";
import type { ToolInput } from "../../permission/types.js";
import { SandboxFileError } from "../../sandbox/sandbox.js";
import { textChunk } from "../response.js";
import type { ToolRunContext } from "../run-context.js";
import type { SandboxRead, ToolCallOutput } from "../tool-base.js";
import { BuiltinTool, type BuiltinToolOptions, errorChunk } from "./builtin-tool.js";
import { entryFor, MAX_READ_BYTES } from "./file-state.js";
import { argumentField } from "./operands.js";
import { formatNumberedLines } from "./text-lines.js";

/** Read's input. */
export const ReadInput = z.object({
  file_path: argumentField().describe("The absolute path to the file to read"),
  offset: z
    .number()
    .int()
    .min(1)
    .default(1)
    .describe(
      "The line number to start reading from (1-based). Only provide if the file is too large to read at once",
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(2000)
    .default(2000)
    .describe("The number of lines to read. Only provide if the file is too large to read at once."),
});

const DESCRIPTION = `Reads a text file from the sandbox's file system.

Usage:
- The file_path parameter must be an absolute path, not a relative path
- By default, it reads up to 2000 lines starting from the beginning of the file
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters
- Any lines longer than 2000 characters will be truncated
- Results are returned using cat -n format, with line numbers starting at 1
- The file is decoded as UTF-8 text. Images, PDFs and other binary files are not rendered
- Files larger than 10 MiB cannot be read; use Grep, or Bash with head, tail or sed -n, to look at parts of them
- This tool reads files, not directories. To list a directory, use Bash with ls
- Reading a file is required before you overwrite it with Write or change it with Edit
- An empty file gives an empty result`;

/** Read's constructor options. */
export interface ReadOptions extends BuiltinToolOptions {
  maxLineCharacters?: number;
}

/** Reads a file with line numbers. */
export class ReadTool extends BuiltinTool<typeof ReadInput> {
  readonly name = "Read";
  readonly description = DESCRIPTION;
  readonly isConcurrencySafe = true;
  readonly isReadOnly = true;
  // One readFile (a regular file only, file-ops.mjs) and a read-cache put the run holds.
  readonly runsAhead = true;
  override readonly isStateInjected = true;
  private readonly maxLineCharacters: number;

  constructor(opts: ReadOptions = {}) {
    super(ReadInput, opts.permission ?? readPolicy(), opts);
    this.maxLineCharacters = opts.maxLineCharacters ?? 2000;
  }

  firstRead(input: ToolInput): SandboxRead | undefined {
    const p = (input as { file_path?: unknown }).file_path;
    return typeof p === "string" && posix.isAbsolute(p) ? { path: p, maxBytes: MAX_READ_BYTES } : undefined;
  }

  protected async run(input: z.output<typeof ReadInput>, ctx: ToolRunContext): Promise<ToolCallOutput> {
    const p = input.file_path;
    if (!posix.isAbsolute(p)) return errorChunk(`Error: file_path must be an absolute path, got: ${p}`);
    try {
      // One round trip: the sandbox opens the file, follows links and reports the resolved path
      // (the read firstRead names).
      const file = await ctx.sandbox.readFile(p, { maxBytes: MAX_READ_BYTES });
      const realPath = file.realPath ?? (await ctx.sandbox.realPath(p));
      const entry = entryFor(realPath, file.data, file.mtimeMs);
      await ctx.readCache.put(ctx.sessionId, entry);
      const start = input.offset - 1;
      const lines = entry.lines.slice(start, start + input.limit);
      return textChunk(formatNumberedLines(lines, input.offset, this.maxLineCharacters));
    } catch (error) {
      if (error instanceof SandboxFileError && (error.code === "ENOENT" || error.code === "ENOTDIR")) {
        return errorChunk(`Error: File does not exist: ${p}`);
      }
      if (error instanceof SandboxFileError && error.code === "EISDIR") {
        return errorChunk(`Error: Path is a directory, not a file: ${p}`);
      }
      if (error instanceof SandboxFileError && error.code === "EFBIG") {
        return errorChunk(
          `Error: File ${p} is larger than the ${MAX_READ_BYTES / 1024 / 1024} MiB Read limit. Use Grep, or Bash with head, tail or sed -n, to look at parts of it.`,
        );
      }
      return errorChunk(`Error reading file: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
