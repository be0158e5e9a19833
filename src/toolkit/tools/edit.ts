/**
 * The `Edit` tool (docs/tools.md#edit): exact
 * string replacement in a file that was Read and is unchanged since; line endings are kept.
 */
import { posix } from "node:path";
import { z } from "zod";
import {
  type DangerousLists,
  DEFAULT_DANGEROUS_LISTS,
  extendDangerousLists,
} from "../../permission/paths.js";
import { editPolicy } from "../../permission/write-policy.js";
import { unifiedDiff } from "../diff.js";
import { textChunk } from "../response.js";
import type { ToolRunContext } from "../run-context.js";
import type { ToolCallOutput } from "../tool-base.js";
import { BuiltinTool, errorChunk, type FileToolOptions, writeErrorChunk } from "./builtin-tool.js";
import { readCurrent, refreshEntry, validEntry } from "./file-state.js";
import { argumentField } from "./operands.js";
import { guardWriteTarget } from "./path-guard.js";
import { decodeUtf8, detectEol, normalizeNewlines } from "./text-lines.js";

/** Edit's input. */
export const EditInput = z.object({
  file_path: argumentField().describe("The absolute path to the file to modify"),
  old_string: z.string().describe("The text to replace"),
  new_string: z.string().describe("The text to replace it with (must be different from old_string)"),
  replace_all: z.boolean().default(false).describe("Replace all occurrences of old_string (default false)"),
});

const DESCRIPTION = `Performs exact string replacements in files.

Usage:
- You must use your \`Read\` tool at least once before editing a file. This tool will error if you attempt an edit without reading the file, or if the file changed after you read it. After a successful Write or Edit of your own, no new Read is needed.
- When editing text from Read tool output, ensure you preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. The line number prefix format is: spaces + line number + tab. Everything after that tab is the actual file content to match. Never include any part of the line number prefix in the old_string or new_string.
- The file's line endings are kept: a file with CRLF line endings stays CRLF.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- Only use emojis if the user explicitly requests it. Avoid adding emojis to files unless asked.
- The edit will FAIL if \`old_string\` is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use \`replace_all\` to change every instance of \`old_string\`.
- Use \`replace_all\` for replacing and renaming strings across the file.`;

/** Replaces exact strings in a file. */
export class EditTool extends BuiltinTool<typeof EditInput> {
  readonly name = "Edit";
  readonly description = DESCRIPTION;
  readonly isConcurrencySafe = false;
  readonly isReadOnly = false;
  override readonly isStateInjected = true;
  private readonly lists: DangerousLists;

  constructor(opts: FileToolOptions = {}) {
    super(EditInput, opts.permission ?? editPolicy(opts), opts);
    this.lists = extendDangerousLists(DEFAULT_DANGEROUS_LISTS, opts);
  }

  protected async run(input: z.output<typeof EditInput>, ctx: ToolRunContext): Promise<ToolCallOutput> {
    try {
      return await this.edit(input, ctx);
    } catch (error) {
      return errorChunk(`Error reading file: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async edit(input: z.output<typeof EditInput>, ctx: ToolRunContext): Promise<ToolCallOutput> {
    const p = input.file_path;
    if (!posix.isAbsolute(p)) return errorChunk(`Error: file_path must be an absolute path, got: ${p}`);
    const guard = await guardWriteTarget(ctx, p, this.lists, "edit");
    if (!guard.ok) return errorChunk(guard.message);
    const { realPath } = guard;
    if ((await ctx.sandbox.stat(realPath)) === null) return errorChunk(`Error: File not found: ${p}`);
    const oldString = normalizeNewlines(input.old_string);
    const newString = normalizeNewlines(input.new_string);
    if (oldString === newString) {
      return errorChunk("Error: old_string and new_string are identical. No changes to make.");
    }
    const current = await readCurrent(ctx, realPath);
    const entry = await validEntry(ctx, realPath, current);
    if (!current || !entry)
      return errorChunk("Error: To edit a file, you must first read it using the Read tool.");

    const content = entry.lines.join("");
    const occurrences = countOccurrences(content, oldString);
    if (occurrences === 0) return errorChunk(`Error: old_string not found in ${p}`);
    if (occurrences > 1 && !input.replace_all) {
      return errorChunk(
        `Error: old_string appears ${occurrences} times in ${p}. Set replace_all=true to replace all occurrences, or make old_string more specific.`,
      );
    }
    // Functions as replacers keep `$&`-style patterns in new_string literal.
    const updated = input.replace_all
      ? content.replaceAll(oldString, () => newString)
      : content.replace(oldString, () => newString);
    const eol = detectEol(decodeUtf8(current.data));
    const data = Buffer.from(eol === "\r\n" ? updated.replace(/\n/g, "\r\n") : updated, "utf8");
    try {
      const stat = await ctx.sandbox.writeFile(realPath, data);
      await refreshEntry(ctx, realPath, data, stat.mtimeMs);
    } catch (error) {
      return writeErrorChunk(p, error);
    }
    const text = input.replace_all
      ? `Successfully replaced all ${occurrences} occurrences in ${p}`
      : `Successfully replaced 1 occurrence in ${p}`;
    return textChunk(text, {
      metadata: { diff: unifiedDiff(p, content, updated), file_path: p, occurrences },
    });
  }
}

/** Non-overlapping count; an empty needle matches length + 1 times, like Python's str.count. */
function countOccurrences(haystack: string, needle: string): number {
  return needle === "" ? haystack.length + 1 : haystack.split(needle).length - 1;
}
