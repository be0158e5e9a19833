/**
 * The ripgrep argv of the `Grep` tool, flag for flag as the reference builds it (docs/tools.md#grep), except
 * that no input can become an option: input values are joined to their option
 * (`--regexp=<pattern>`, `--type=<t>`, `--glob=<g>`) and the search path comes after `--`; and
 * `--no-config`: a `RIPGREP_CONFIG_PATH` in the sandbox's environment names a file of options
 * (`--pre=<program>` among them), and the agent may write the file it names (attack25b).
 */

/** The parsed Grep input the argv depends on. */
export interface GrepArgsInput {
  pattern: string;
  output_mode: "content" | "files_with_matches" | "count";
  glob?: string | undefined;
  type?: string | undefined;
  "-A"?: number | undefined;
  "-B"?: number | undefined;
  "-C"?: number | undefined;
  context?: number | undefined;
  n: boolean;
  i: boolean;
  case_insensitive: boolean;
  multiline: boolean;
}

const VCS_DIRS = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];

/** `rg --no-config --hidden --glob !.git … --max-columns 500 [flags] --regexp=<pattern> [--type=…] [--glob=…]… -- <path>`. */
export function buildRgArgv(input: GrepArgsInput, searchPath: string): string[] {
  const argv = ["rg", "--no-config", "--hidden", ...VCS_DIRS.flatMap((d) => ["--glob", `!${d}`])];
  argv.push("--max-columns", "500");
  if (input.multiline) argv.push("-U", "--multiline-dotall");
  if (input.i || input.case_insensitive) argv.push("-i");
  if (input.output_mode === "files_with_matches") argv.push("-l");
  else if (input.output_mode === "count") argv.push("-c");
  if (input.output_mode === "content") {
    if (input.n) argv.push("-n");
    argv.push(...contextFlags(input));
  }
  // Joined forms: `--pre=bash` as a pattern, type or glob stays a value, whatever it looks like.
  argv.push(`--regexp=${input.pattern}`);
  if (input.type) argv.push(`--type=${input.type}`);
  for (const g of splitGlobs(input.glob)) argv.push(`--glob=${g}`);
  argv.push("--", searchPath);
  return argv;
}

/** `context` first, then `-C`, then `-B`/`-A`. */
function contextFlags(input: GrepArgsInput): string[] {
  if (input.context !== undefined) return ["-C", String(input.context)];
  if (input["-C"] !== undefined) return ["-C", String(input["-C"])];
  const out: string[] = [];
  if (input["-B"] !== undefined) out.push("-B", String(input["-B"]));
  if (input["-A"] !== undefined) out.push("-A", String(input["-A"]));
  return out;
}

/** Whitespace-separated tokens; a token with both `{` and `}` stays whole, others split on `,`. */
export function splitGlobs(glob: string | undefined): string[] {
  if (!glob) return [];
  return glob
    .split(/\s+/)
    .filter((t) => t !== "")
    .flatMap((t) => (t.includes("{") && t.includes("}") ? [t] : t.split(",").filter((p) => p !== "")));
}
