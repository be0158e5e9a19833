/**
 * The `Write` tool (docs/tools.md#write): creates
 * or overwrites a file; an existing file must have been Read and be unchanged since.
 */
import { posix } from "node:path";
import { z } from "zod";
import {
  type DangerousLists,
  DEFAULT_DANGEROUS_LISTS,
  extendDangerousLists,
} from "../../permission/paths.js";
import { writePolicy } from "../../permission/write-policy.js";
import { unifiedDiff } from "../diff.js";
import { textChunk } from "../response.js";
import type { ToolRunContext } from "../run-context.js";
import type { ToolCallOutput } from "../tool-base.js";
import { BuiltinTool, errorChunk, type FileToolOptions, writeErrorChunk } from "./builtin-tool.js";
import { readCurrent, refreshEntry, validEntry } from "./file-state.js";
import { argumentField } from "./operands.js";
import { guardWriteTarget } from "./path-guard.js";
import { countLines, decodeUtf8 } from "./text-lines.js";

/** Write's input. */
export const WriteInput = z.object({
  file_path: argumentField().describe(
    "The absolute path to the file to write (must be absolute, not relative)",
  ),
  content: z.string().describe("The content to write to the file"),
});

const DESCRIPTION = `Writes a file to the sandbox's file system, creating parent directories as needed.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use the Read tool first to read the file's contents. This tool will fail if you did not read the file first, or if the file changed after you read it. After a successful Write or Edit of your own, no new Read is needed.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the User.
- Only use emojis if the user explicitly requests it. Avoid writing emojis to files unless asked.
- The file_path parameter must be an absolute path. Writing through a symbolic link that leads to a sensitive file is refused.`;

/** Creates or overwrites a file. */
export class WriteTool extends BuiltinTool<typeof WriteInput> {
  readonly name = "Write";
  readonly description = DESCRIPTION;
  readonly isConcurrencySafe = false;
  readonly isReadOnly = false;
  override readonly isStateInjected = true;
  private readonly lists: DangerousLists;

  constructor(opts: FileToolOptions = {}) {
    super(WriteInput, opts.permission ?? writePolicy(opts), opts);
    this.lists = extendDangerousLists(DEFAULT_DANGEROUS_LISTS, opts);
  }

  protected async run(input: z.output<typeof WriteInput>, ctx: ToolRunContext): Promise<ToolCallOutput> {
    const p = input.file_path;
    if (!posix.isAbsolute(p)) return errorChunk(`Error: file_path must be an absolute path, got: ${p}`);
    try {
      const guard = await guardWriteTarget(ctx, p, this.lists, "write");
      if (!guard.ok) return errorChunk(guard.message);
      const { realPath } = guard;
      const exists = (await ctx.sandbox.stat(realPath)) !== null;
      let before: string | null = null;
      if (exists) {
        const current = await readCurrent(ctx, realPath);
        if (!current || !(await validEntry(ctx, realPath, current))) {
          return errorChunk(
            `Error: File ${p} exists but has not been read yet. You must read the file first before writing to it.`,
          );
        }
        before = decodeUtf8(current.data);
      }
      const data = Buffer.from(input.content, "utf8");
      const stat = await ctx.sandbox.writeFile(realPath, data);
      await refreshEntry(ctx, realPath, data, stat.mtimeMs);
      const n = countLines(input.content);
      return textChunk(`The file ${p} has been written successfully (${n} ${n === 1 ? "line" : "lines"}).`, {
        metadata: { diff: unifiedDiff(p, before, input.content), file_path: p, occurrences: 1 },
      });
    } catch (error) {
      return writeErrorChunk(p, error);
    }
  }
}
