/**
 * What a worker does with a job an earlier attempt started and never finished (its worker died,
 * or its sandbox did). The rule that makes a call happen once: run it again only where that
 * cannot repeat a side effect.
 *  - A read-only call: run it again.
 *  - A built-in tool (every side effect goes through keyed sandbox operations): run it again in
 *    the same executor instance, which re-attaches or answers what it answered; if the earlier
 *    attempt used another instance (the container died), its outcome is unknowable: interrupted.
 *  - Any other tool (MCP, tasks, external): interrupted.
 */
import type { JobAttempt } from "../../db/rows.js";

export type TakeoverVerdict = { kind: "run" } | { kind: "interrupt"; why: string };

export interface TakeoverInput {
  /** Every attempt but the current one. */
  earlier: readonly JobAttempt[];
  readOnly: boolean;
  /** All of the tool's side effects go through keyed sandbox operations. */
  keyed: boolean;
  /** The executor instance this attempt would use (asked only when it matters). */
  currentSandbox: () => Promise<string>;
}

export async function judgeTakeover(input: TakeoverInput): Promise<TakeoverVerdict> {
  if (input.earlier.length === 0 || input.readOnly) return { kind: "run" };
  if (!input.keyed) return { kind: "interrupt", why: "an earlier attempt may have run it" };
  const used = input.earlier.map((a) => a.sandbox).filter((s): s is string => s !== undefined);
  if (used.length === 0) return { kind: "run" };
  const current = await input.currentSandbox();
  if (used.every((s) => s === current)) return { kind: "run" };
  return { kind: "interrupt", why: "the sandbox restarted while an earlier attempt ran it" };
}

/** The result text of an interrupted call. */
export function interruptedText(why: string): string {
  return `The tool call was interrupted (${why}): it may have partly run, and it was not run again so that nothing happens twice. Check its effects before calling it again.`;
}
