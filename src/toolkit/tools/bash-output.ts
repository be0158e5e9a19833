/**
 * Turning a finished Bash exec into the texts of docs/tools.md#bash, with Toolshed's timeout note
 * and exit code: success output, `Command failed: …`, truncation at 30,000 characters.
 */
import type { ExecResult } from "../../sandbox/sandbox.js";

/** Characters of output kept in the result. */
export const MAX_OUTPUT_CHARS = 30_000;
const TRUNCATED_MARK = "\n... (output truncated)";

/** The model-facing text and whether it is an error. */
export interface BashOutcome {
  text: string;
  isError: boolean;
  /** Output was cut (by the character cap or the sandbox's byte cap). */
  truncated: boolean;
}

/** The text for a finished, timed-out or failed command (cancel is handled by the caller). */
export function formatBashResult(command: string, timeoutMs: number, result: ExecResult): BashOutcome {
  const stdout = crlfToLf(result.stdout);
  const stderr = crlfToLf(result.stderr);
  if (result.timedOut) {
    const header = `Command timed out after ${timeoutMs}ms: ${command}\nThe command and its child processes were killed.`;
    const partial = streams(stdout, stderr);
    const text = partial ? `${header} Partial output:\n${partial}` : `${header} It produced no output.`;
    return outcome(text, result.truncated, true);
  }
  if (result.exitCode === 0) {
    const both = stdout && stderr ? `${stdout}\n${stderr}` : stdout + stderr;
    return outcome(both, result.truncated, false);
  }
  return outcome(`Command failed: ${command}\n${streams(stdout, stderr)}`, result.truncated, true);
}

/** The text when the command could not be run at all. */
export function formatBashException(command: string, error: unknown): string {
  return `Command failed: ${command}\nError: ${error instanceof Error ? error.message : String(error)}`;
}

function streams(stdout: string, stderr: string): string {
  return (stdout ? `\nStdout:\n${stdout}` : "") + (stderr ? `\nStderr:\n${stderr}` : "");
}

function outcome(text: string, alreadyTruncated: boolean, isError: boolean): BashOutcome {
  if (text.length > MAX_OUTPUT_CHARS) {
    return { text: text.slice(0, MAX_OUTPUT_CHARS) + TRUNCATED_MARK, isError, truncated: true };
  }
  return { text: alreadyTruncated ? text + TRUNCATED_MARK : text, isError, truncated: alreadyTruncated };
}

function crlfToLf(s: string): string {
  return s.replace(/\r\n/g, "\n");
}
