/**
 * `toolshed policy check`: JSON Lines on stdin, one answer line per input line, in order
 * (docs/api.md#policy-check). Imports only the pure permission package so it starts fast.
 */
import { createInterface } from "node:readline";
import { runPolicyCheck } from "../permission/policy-check.js";
import type { PermissionSubject } from "../permission/types.js";

type Subjects = ReadonlyMap<string, PermissionSubject>;

function answerLine(line: string, subjects: Subjects): unknown {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { error: { code: "INVALID_JSON", message: `Line is not valid JSON: ${detail}` } };
  }
  try {
    return runPolicyCheck(request, subjects);
  } catch (err) {
    // One failing line must not end the run.
    const detail = err instanceof Error ? err.message : String(err);
    return { error: { code: "INTERNAL", message: `Policy check failed: ${detail}` } };
  }
}

/**
 * Answers every non-blank JSON line of `stdin` on `stdout` and returns the exit code (0).
 * `subjects` defaults to the built-in tools.
 */
export async function runPolicyCheckCli(
  stdin: NodeJS.ReadableStream,
  stdout: NodeJS.WritableStream,
  subjects?: Subjects,
): Promise<number> {
  const known = subjects ?? (await import("../permission/builtins.js")).builtinSubjects();
  const lines = createInterface({ input: stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const text = `${JSON.stringify(answerLine(line, known))}\n`;
    if (!stdout.write(text)) await new Promise<void>((resolve) => stdout.once("drain", () => resolve()));
  }
  return 0;
}
