/**
 * Input fields that end up in a program's argv or a file operation. The rule every tool follows:
 * no input becomes an option. Builders put input after `--` or join it to its option
 * (`--glob=<x>`); these fields refuse, with a clear message, what no argv could carry (NUL) and a
 * path that a program would read as an option (`-x`; `./-x` names such a file).
 */
import { z } from "zod";

/** Why `value` cannot be a program argument, or null when it can. */
export function argumentProblem(value: string): string | null {
  return value.includes("\0") ? "must not contain a NUL character" : null;
}

/** Why `value` cannot be a path operand, or null when it can. The empty string means "default". */
export function pathOperandProblem(value: string): string | null {
  const problem = argumentProblem(value);
  if (problem) return problem;
  if (value.startsWith("-")) {
    return `'${value}' starts with '-' and would be read as an option, not a path; write './${value}' for a file whose name starts with '-'`;
  }
  return null;
}

/** A string field passed to a program as an argument or an option's value, or to a file operation. */
export function argumentField(): z.ZodString {
  return z.string().superRefine(refineWith(argumentProblem));
}

/** A string field holding a path: no NUL, and not shaped like an option. */
export function pathOperandField(): z.ZodString {
  return z.string().superRefine(refineWith(pathOperandProblem));
}

function refineWith(problem: (value: string) => string | null) {
  return (value: string, ctx: z.RefinementCtx<string>): void => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: "custom", message, input: value });
  };
}
