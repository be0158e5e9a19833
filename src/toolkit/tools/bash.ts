/**
 * The `Bash` tool (docs/tools.md#bash): runs `bash -c` in the session's working
 * directory inside the sandbox, streams output while it runs, keeps the working directory
 * between calls, reports the exit code, and kills the process group on timeout or cancel.
 */
import { z } from "zod";
import { bashPolicy } from "../../permission/bash/policy.js";
import type { ExecIdentity, ExecResult } from "../../sandbox/sandbox.js";
import { chunk, newId, textBlock, textChunk } from "../response.js";
import type { ToolRunContext } from "../run-context.js";
import type { ToolCallOutput } from "../tool-base.js";
import { INTERRUPTED_TEXT } from "../toolkit-errors.js";
import { adoptFinalCwd, trackCwd } from "./bash-cwd.js";
import { formatBashException, formatBashResult, MAX_OUTPUT_CHARS } from "./bash-output.js";
import { BuiltinTool, type FileToolOptions } from "./builtin-tool.js";
import { argumentField } from "./operands.js";

/** Default timeout in ms. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** Largest timeout a call may ask for, in ms. */
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** Characters forwarded live through `ctx.onChunk` before live streaming stops (flood guard). */
export const MAX_LIVE_CHARS = 200_000;

/** Bash's input. */
export const BashInput = z.object({
  command: argumentField().describe("The command to execute"),
  description: z
    .string()
    .default("")
    .describe("Clear, concise description of what this command does in 5-10 words"),
  timeout: z
    .number()
    .int()
    .min(0)
    .max(BASH_MAX_TIMEOUT_MS)
    .default(BASH_DEFAULT_TIMEOUT_MS)
    .describe(`Optional timeout in milliseconds (max ${BASH_MAX_TIMEOUT_MS})`),
});

const DESCRIPTION = `Executes a bash command in the session's sandbox and returns its output.

- The working directory persists between commands: a \`cd\` carries over to the next call. Shell state does not: environment variables, aliases, functions and shell options set in one call are gone in the next.
- Prefer the dedicated tools over shell equivalents: Read instead of cat/head/tail, Edit instead of sed/awk, Write instead of echo/heredoc redirection, Glob instead of find/ls, Grep instead of grep/rg.
- Always quote file paths that contain spaces with double quotes (e.g., cd "path with spaces/file.txt").
- The command gets no input (no stdin, no TTY): interactive programs will not work.
- The timeout is in milliseconds: ${BASH_DEFAULT_TIMEOUT_MS} (2 minutes) by default, at most ${BASH_MAX_TIMEOUT_MS} (10 minutes). On timeout the command and all its child processes are killed and the output so far is returned.
- There is no background mode: the call ends when the command and every process holding its output have finished, or at the timeout. Avoid unnecessary \`sleep\` commands.
- Output longer than ${MAX_OUTPUT_CHARS} characters is truncated. stdout comes first, then stderr.
- A non-zero exit status makes the result an error starting with "Command failed:" that shows stdout and stderr separately.
- When several commands are independent, issue them as separate parallel calls; when they depend on each other, chain them with '&&'.
- For git: never change git config, never force-push, never skip hooks, and only commit when the user asks you to.
- Give a short description of what the command does in the description parameter.`;

/** Runs shell commands in the sandbox. */
export class BashTool extends BuiltinTool<typeof BashInput> {
  readonly name = "Bash";
  readonly description = DESCRIPTION;
  readonly isConcurrencySafe = false;
  readonly isReadOnly = false;

  constructor(opts: FileToolOptions = {}) {
    super(BashInput, opts.permission ?? bashPolicy(opts), opts);
  }

  protected async run(input: z.output<typeof BashInput>, ctx: ToolRunContext): Promise<ToolCallOutput> {
    const { command } = input;
    const timeoutMs = Math.min(input.timeout, BASH_MAX_TIMEOUT_MS);
    if (ctx.signal.aborted) return textChunk(INTERRUPTED_TEXT, { state: "interrupted" });
    const script = trackCwd(command);
    let result: ExecResult;
    try {
      result = await ctx.sandbox.exec({
        argv: ["bash", "-c", script],
        cwd: ctx.cwd,
        reportCwd: true,
        identity: identityFor(ctx),
        timeoutMs,
        // Bytes per stream: enough for MAX_OUTPUT_CHARS of multi-byte text; the rest is dropped.
        maxOutputBytes: MAX_OUTPUT_CHARS * 4,
        signal: ctx.signal,
        onOutput: liveForwarder(ctx),
      });
    } catch (error) {
      if (ctx.signal.aborted) return textChunk(INTERRUPTED_TEXT, { state: "interrupted" });
      return textChunk(formatBashException(command, error), { state: "error" });
    }
    const newCwd = result.cancelled ? undefined : await adoptFinalCwd(ctx, result);
    const metadata = {
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      ...(newCwd ? { cwd: newCwd } : {}),
      ...processMetadata(result),
    };
    if (result.cancelled) return textChunk(INTERRUPTED_TEXT, { state: "interrupted", metadata });
    const outcome = formatBashResult(command, timeoutMs, result);
    return textChunk(outcome.text, {
      state: outcome.isError ? "error" : "running",
      metadata: { ...metadata, truncated: outcome.truncated },
    });
  }
}

/**
 * Who runs the command: a call allowed because it is read-only runs as an identity that cannot
 * write; one auto-allowed by accept_edits as one that can write the workspace only. A mis-analysed
 * command then fails instead of doing more than its permission said.
 */
function identityFor(ctx: ToolRunContext): ExecIdentity {
  if (ctx.readOnlyCall) return "reader";
  return ctx.autoAllowedEdit ? "editor" : "agent";
}

/** What the result says about processes: those killed at the end, and those left running. */
function processMetadata(result: ExecResult): Record<string, unknown> {
  return {
    ...(result.killed ? { killedProcesses: result.killed } : {}),
    ...(result.leftoverCount
      ? { leftoverProcesses: result.leftover, leftoverCount: result.leftoverCount }
      : {}),
  };
}

/** Forwards sandbox output pieces as running chunks of one live block, up to MAX_LIVE_CHARS. */
function liveForwarder(
  ctx: ToolRunContext,
): ((stream: "stdout" | "stderr", data: string) => void) | undefined {
  const onChunk = ctx.onChunk?.bind(ctx);
  if (!onChunk) return undefined;
  const liveId = newId();
  let sent = 0;
  return (stream, data) => {
    if (sent >= MAX_LIVE_CHARS) return;
    const piece = data.slice(0, MAX_LIVE_CHARS - sent);
    sent += piece.length;
    const note = sent >= MAX_LIVE_CHARS ? "\n... (live output truncated)" : "";
    onChunk(chunk([textBlock(piece + note, liveId)], { isLast: false, metadata: { live: true, stream } }));
  };
}
