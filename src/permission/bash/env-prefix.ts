/**
 * Environment names a read-only or `accept_edits` command may be given (`LC_ALL=C ls`,
 * `env TZ=UTC date`): locale, time zone, colour and terminal size. Never `HOME`, `PATH`,
 * `XDG_*`, `*_CONFIG*`, `GIT_*`, `RIPGREP_*`, `LD_*`, `BASH_*`, `ENV`, `PAGER`, `EDITOR`, `CDPATH`:
 * those choose which program runs or which configuration is read.
 */
const SAFE_NAMES: ReadonlySet<string> = new Set([
  "LANG",
  "LANGUAGE",
  "TZ",
  "NO_COLOR",
  "FORCE_COLOR",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "TERM",
  "COLUMNS",
  "LINES",
]);

/** May `name` be set in front of an auto-allowed command? */
export function isSafePrefixName(name: string): boolean {
  return SAFE_NAMES.has(name) || /^LC_[A-Z]+$/.test(name);
}
