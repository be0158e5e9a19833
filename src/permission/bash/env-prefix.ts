/**
 * Environment names an auto-allowed command may be given (`LC_ALL=C ls`): locale, time zone,
 * colour, terminal size. Never `HOME`, `PATH`, `XDG_*`, `GIT_*`, `LD_*`, `BASH_*`, `PAGER`…:
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
