/**
 * The shapes a simple command memoises about itself (what sed and the file commands read from
 * it), apart from the modules that compute them so that simple-commands.ts can hold the memo
 * without importing them back.
 */

/** How one sed invocation reads: its flags, expressions and files. */
export interface SedCall {
  flags: Set<string>;
  expressions: string[];
  files: string[];
  /** The `-i`/`--in-place` backup suffix, or null when none is given. */
  suffix: string | null;
  /** `--follow-symlinks`: with `-i` it writes wherever a link points. */
  followsLinks: boolean;
  /** The first problem with the arguments themselves, or null. */
  error: string | null;
}

/** One extracted target. */
export interface Target {
  /** `redirect` or the command name. */
  source: string;
  /** Quotes removed, `~`/`$HOME` as written (for messages and best-effort checks). */
  lit: string;
  /** The literal path with home expanded; null when an unknown expansion is involved. */
  value: string | null;
  /** Directory the command runs in; null when unknown. */
  cwd: string | null;
  /** Glob and brace bits of the word it was read from (word-shape.ts). */
  shape: number;
}

export interface FileArgs {
  targets: Target[];
  /** An option unknown, unread, or writing where no target says (`cp --parents`, `-S /x`). */
  unchecked: boolean;
}
