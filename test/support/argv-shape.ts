/**
 * How a getopt-style parser (ripgrep's, bash's, GNU's) reads an argv: each element after the
 * program is an option, the value of the option before it, the `--` that ends options, or an
 * operand. Tests use it to show that no element taken from input is ever read as an option.
 */

/** One element's role; `value` on an option is its joined value (`--glob=x`, `-C3`). */
export type ArgRole =
  | { role: "option"; name: string; value?: string }
  | { role: "value"; of: string; text: string }
  | { role: "end" }
  | { role: "operand"; afterEnd: boolean; text: string };

/** Reads `argv` (program first) the way a parser whose value-taking options are `takesValue` would. */
export function readArgv(argv: readonly string[], takesValue: ReadonlySet<string>): ArgRole[] {
  const roles: ArgRole[] = [];
  let ended = false;
  let pending: string | null = null;
  for (const arg of argv.slice(1)) {
    if (pending !== null) {
      roles.push({ role: "value", of: pending, text: arg });
      pending = null;
    } else if (ended || arg === "-" || !arg.startsWith("-")) {
      roles.push({ role: "operand", afterEnd: ended, text: arg });
    } else if (arg === "--") {
      ended = true;
      roles.push({ role: "end" });
    } else {
      const option = readOption(arg, takesValue);
      roles.push(option);
      if (option.value === undefined && takesValue.has(option.name)) pending = option.name;
    }
  }
  return roles;
}

function readOption(
  arg: string,
  takesValue: ReadonlySet<string>,
): { role: "option"; name: string; value?: string } {
  if (arg.startsWith("--")) {
    const eq = arg.indexOf("=");
    return eq === -1
      ? { role: "option", name: arg }
      : { role: "option", name: arg.slice(0, eq), value: arg.slice(eq + 1) };
  }
  // A short option that takes a value swallows the rest of the element; flags may cluster (`-in`).
  const short = arg.slice(0, 2);
  if (takesValue.has(short) && arg.length > 2) return { role: "option", name: short, value: arg.slice(2) };
  return { role: "option", name: takesValue.has(short) ? short : arg };
}
