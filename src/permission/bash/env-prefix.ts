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

/**
 * May `NAME=value` be set in front of an auto-allowed command? A safe name, and a value that names
 * no file of the agent's: a locale value is a name, never a path (`LANGUAGE=../../../workspace/l`
 * made gettext load the agent's message catalogue, i.e. the format strings `ls` and git print
 * with), and a time zone is a name under the zone directory, never an absolute path nor one that
 * climbs out of it (`TZ=/workspace/z`, `TZ=:../../../workspace/z`). Unknown values (`$X`) are refused.
 */
export function isSafePrefix(name: string, value: string | null | undefined): boolean {
  if (!isSafePrefixName(name) || value == null) return false;
  if (name !== "TZ") return !value.includes("/");
  const zone = value.startsWith(":") ? value.slice(1) : value;
  return !zone.startsWith("/") && !zone.split("/").includes("..");
}
