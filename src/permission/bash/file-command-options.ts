/**
 * The complete option tables of the GNU file commands whose targets `accept_edits` checks
 * (coreutils 9.1, as in the sandbox image), so `--target=/tmp`, `-vt/tmp`, `-tDIR` and
 * `--target-directory DIR` are all read as the command reads them.
 */
import { type OptionSpec, optionSpec } from "./options.js";

const COMMON = "help version";

export const FILE_COMMAND_SPECS: ReadonlyMap<string, OptionSpec> = new Map([
  [
    "cp",
    optionSpec({
      flags: "abdfHilLnPpRrsTuvxZ",
      valued: "St",
      long: `${COMMON} archive attributes-only copy-contents force interactive link dereference
        no-clobber no-dereference parents recursive remove-destination strip-trailing-slashes
        symbolic-link no-target-directory update verbose one-file-system debug
        keep-directory-symlink`,
      longValued: "no-preserve sparse suffix target-directory",
      longOptional: "backup preserve reflink context",
      cluster: true,
      abbrev: true,
    }),
  ],
  [
    "mv",
    optionSpec({
      flags: "bfinTuvZ",
      valued: "St",
      long: `${COMMON} force interactive no-clobber strip-trailing-slashes no-target-directory
        update verbose context debug`,
      longValued: "suffix target-directory",
      longOptional: "backup",
      cluster: true,
      abbrev: true,
    }),
  ],
  [
    "ln",
    optionSpec({
      flags: "bdFfiLnPrsTv",
      valued: "St",
      long: `${COMMON} directory force interactive logical no-dereference physical relative
        symbolic no-target-directory verbose`,
      longValued: "suffix target-directory",
      longOptional: "backup",
      cluster: true,
      abbrev: true,
    }),
  ],
  [
    "install",
    optionSpec({
      flags: "bcCdDpsTvZ",
      valued: "gmoSt",
      long: `${COMMON} compare directory preserve-timestamps strip no-target-directory verbose
        preserve-context debug`,
      longValued: "group mode owner strip-program suffix target-directory",
      longOptional: "backup context",
      cluster: true,
      abbrev: true,
    }),
  ],
  [
    "touch",
    optionSpec({
      flags: "acfhm",
      valued: "drt",
      long: `${COMMON} no-create no-dereference`,
      longValued: "date reference time",
      cluster: true,
      abbrev: true,
    }),
  ],
  [
    "mkdir",
    optionSpec({
      flags: "pvZ",
      valued: "m",
      long: `${COMMON} parents verbose`,
      longValued: "mode",
      longOptional: "context",
      cluster: true,
      abbrev: true,
    }),
  ],
  [
    "rm",
    optionSpec({
      flags: "fiIrRdv",
      long: `${COMMON} force one-file-system no-preserve-root recursive dir verbose`,
      longOptional: "interactive preserve-root",
      cluster: true,
      abbrev: true,
    }),
  ],
  [
    "rmdir",
    optionSpec({
      flags: "pv",
      long: `${COMMON} ignore-fail-on-non-empty parents verbose`,
      cluster: true,
      abbrev: true,
    }),
  ],
]);

/** Options whose value is a path the command writes into (or, for touch, reads its times from). */
export const PATH_VALUED = new Set(["-t", "--target-directory"]);
export const TOUCH_PATH_VALUED = new Set(["-r", "--reference"]);

/**
 * Options `accept_edits` will not auto-allow: `cp --parents` writes DEST/SOURCE (a `..` in SOURCE
 * climbs out), `install -s`/`--strip-program` run a program; a backup suffix is checked apart.
 */
export const UNCHECKED_WRITES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["cp", new Set(["--parents"])],
  ["install", new Set(["-s", "--strip", "--strip-program"])],
]);
