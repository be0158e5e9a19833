/**
 * The options each read-only git subcommand may be given, by exact name (`--open`, `--outp` are
 * unknown). Left out, as they run a program or write a file: `--output`, `--ext-diff`,
 * `--textconv`, `--filters`, `-O`, `--show-signature`, `--dirty`/`--broken`.
 */
import { mergeSpecs, optionSpec, type SpecText } from "./options.js";

/** Diff options shared by diff, log, show and friends. */
const DIFF: SpecText = {
  flags: "pusRabwWzDmct",
  attached: "MCBlOUI",
  long: `patch no-patch raw patch-with-raw patch-with-stat compact-summary numstat shortstat
    cumulative summary name-only name-status no-color no-color-moved no-renames rename-empty
    no-rename-empty check full-index binary no-abbrev find-copies-harder irreversible-delete
    pickaxe-all pickaxe-regex no-relative text ignore-cr-at-eol ignore-space-at-eol
    ignore-space-change ignore-all-space ignore-blank-lines function-context exit-code quiet
    no-ext-diff no-textconv no-prefix default-prefix ita-invisible-in-index ita-visible-in-index
    minimal patience histogram indent-heuristic no-indent-heuristic cc combined-all-paths
    no-diff-merges remerge-diff`,
  longOptional: `stat dirstat submodule color color-moved word-diff color-words break-rewrites
    find-renames find-copies relative ignore-submodules abbrev`,
  longValued: `diff-filter find-object skip-to rotate-to ignore-matching-lines inter-hunk-context
    src-prefix dst-prefix line-prefix unified anchored diff-algorithm word-diff-regex
    color-moved-ws ws-error-highlight diff-merges stat-width stat-name-width stat-count
    stat-graph-width`,
};

/** Revision walking and commit formatting (log, show, rev-list, shortlog, reflog show). */
const REVISIONS: SpecText = {
  flags: "giEFP",
  valued: "nSGL",
  long: `oneline graph no-decorate source all not first-parent merges no-merges no-min-parents
    no-max-parents all-match invert-grep regexp-ignore-case extended-regexp fixed-strings
    perl-regexp basic-regexp remove-empty follow full-history simplify-merges ancestry-path
    simplify-by-decoration dense sparse show-pulls topo-order date-order author-date-order reverse
    do-walk left-right left-only right-only cherry cherry-mark cherry-pick boundary abbrev-commit
    no-abbrev-commit relative-date parents children no-expand-tabs no-notes log-size full-diff
    use-mailmap no-use-mailmap mailmap no-mailmap reflog walk-reflogs single-worktree
    ignore-missing bisect stdin count objects objects-edge no-object-names in-commit-order header
    timestamp unpacked indexed-objects merge`,
  longOptional:
    "decorate branches tags remotes no-walk show-linear-break expand-tabs notes show-notes pretty",
  longValued: `max-count skip since after until before since-as-filter author committer grep
    grep-reflog min-parents max-parents decorate-refs decorate-refs-exclude glob exclude format
    date encoding max-age min-age`,
};

/** `git log`, `show`, `rev-list`, `reflog show`: one option per word, `-5` for a count. */
export const LOG_SPEC = optionSpec({ ...mergeSpecs(DIFF, REVISIONS), numeric: true });

/** `git diff`: diff options, `--cached`, `-1/-2/-3` for merge stages. */
export const DIFF_SPEC = optionSpec({
  ...mergeSpecs(DIFF, { long: "cached staged merge-base no-index base ours theirs" }),
  numeric: true,
});

/** `git shortlog`: its own `-n`/`-s`/`-e`/`-c` (flags here) over the revision options. */
export const SHORTLOG_SPEC = optionSpec({
  ...mergeSpecs(REVISIONS, { long: "numbered summary email committer", longValued: "group" }),
  flags: "nsecEFPi",
  valued: "",
  attached: "w",
  cluster: true,
});

export const STATUS_SPEC = optionSpec({
  flags: "sbvz",
  attached: "u",
  long: `short branch show-stash long verbose null no-column ahead-behind no-ahead-behind renames
    no-renames`,
  longOptional: "porcelain untracked-files ignored ignore-submodules column find-renames",
  cluster: true,
});

export const BLAME_SPEC = optionSpec({
  flags: "bltpcsefnw",
  valued: "SL",
  attached: "MC",
  long: `root show-stats score-debug reverse first-parent porcelain line-porcelain incremental
    progress no-progress minimal color-lines color-by-age show-email show-name show-number
    no-textconv`,
  longOptional: "abbrev",
  longValued: "contents encoding date ignore-rev ignore-revs-file",
  cluster: true,
});

export const GREP_SPEC = optionSpec({
  flags: "niIwvlLchHoqzpWraEGFP",
  valued: "ABCefm",
  long: `line-number column ignore-case word-regexp invert-match files-with-matches name-only
    files-without-match count full-name only-matching quiet null break heading show-function
    function-context and or not all-match extended-regexp basic-regexp fixed-strings perl-regexp
    recursive no-recursive cached untracked no-index no-exclude-standard exclude-standard
    recurse-submodules text no-color no-textconv`,
  longOptional: "color",
  longValued: "after-context before-context context max-depth threads max-count",
  cluster: true,
  numeric: true,
});

export const LS_FILES_SPEC = optionSpec({
  flags: "cdmoisukztvf",
  valued: "xX",
  long: `cached deleted modified others ignored stage unmerged killed directory no-empty-directory
    eol error-unmatch full-name recurse-submodules debug deduplicate sparse exclude-standard
    resolve-undo`,
  longOptional: "abbrev",
  longValued: "exclude exclude-from exclude-per-directory with-tree format",
  cluster: true,
});

export const LS_TREE_SPEC = optionSpec({
  flags: "drtlz",
  long: "long name-only name-status object-only full-name full-tree",
  longOptional: "abbrev",
  longValued: "format",
  cluster: true,
});

export const CAT_FILE_SPEC = optionSpec({
  flags: "tsepzZ",
  long: "batch-all-objects buffer follow-symlinks unordered allow-unknown-type use-mailmap mailmap no-mailmap",
  longOptional: "batch batch-check batch-command",
  cluster: true,
});

export const REV_PARSE_SPEC = optionSpec({
  flags: "q",
  long: `verify quiet symbolic symbolic-full-name show-toplevel show-cdup show-prefix
    show-superproject-working-tree git-dir git-common-dir absolute-git-dir is-inside-git-dir
    is-inside-work-tree is-bare-repository is-shallow-repository show-ref-format all
    local-env-vars sq sq-quote revs-only no-revs flags no-flags not`,
  longOptional: "abbrev-ref short branches tags remotes show-object-format disambiguate",
  longValued: "glob exclude since after until before path-format default prefix git-path resolve-git-dir",
});

export const DESCRIBE_SPEC = optionSpec({
  long: "all tags contains exact-match debug long always first-parent",
  longOptional: "abbrev",
  longValued: "candidates match exclude",
  cluster: true,
});

/** `git config` in a reading action; the action itself is checked by the caller. */
export const CONFIG_SPEC = optionSpec({
  flags: "lz",
  valued: "f",
  long: `get get-all get-regexp get-urlmatch get-color get-colorbool list global system local
    worktree show-origin show-scope null name-only includes no-includes bool int bool-or-int path
    expiry-date no-type fixed-value`,
  longValued: "file blob type default",
  cluster: true,
});

/** The `--pretty=` names git knows itself (any other name may be a `pretty.<name>` from config). */
export const BUILTIN_PRETTY = new Set([
  "oneline",
  "short",
  "medium",
  "full",
  "fuller",
  "reference",
  "email",
  "raw",
  "mboxrd",
]);
