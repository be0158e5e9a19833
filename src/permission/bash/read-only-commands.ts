/**
 * The commands that only read, each with the check of its arguments. Commands none of whose
 * options writes or runs anything take any words; the others are read by their option rules,
 * and an unknown option is not read-only.
 */

import { argsAreKnown, optionSpec, type SpecText } from "./options.js";
import { isReadOnlyFind } from "./read-only-find.js";
import { isReadOnlyGit } from "./read-only-git.js";
import { BRACE, cannotBeOption, isExact, isInert, shapeOf } from "./word-shape.js";
import type { Word } from "./words.js";

/** How one reader's arguments are checked. */
export type ReaderCheck = (args: readonly Word[]) => boolean;

/**
 * Any words, globs and `$NAME` included: every option of these commands only reads or prints,
 * so whatever a word expands to is harmless (the line has no substitution: sound-line.ts).
 * Brace expansion is still refused.
 */
export const anyWords: ReaderCheck = (args) => args.every((w) => (shapeOf(w) & BRACE) === 0);

function bySpec(t: SpecText): ReaderCheck {
  const spec = optionSpec(t);
  return (args) => argsAreKnown(args, spec);
}

/** ripgrep 13/14 without `--pre`, `--pre-glob`, `--search-zip`/`-z`, `--hostname-bin`. */
const rg = bySpec({
  flags: "abcFHhiIlLnNopPqsSuUvVwx0",
  valued: "ABCdEefgjmMrtT",
  long: `ignore-case case-sensitive smart-case line-number no-line-number files-with-matches
    files-without-match count count-matches invert-match word-regexp line-regexp fixed-strings
    no-fixed-strings only-matching quiet unrestricted hidden no-hidden no-ignore ignore
    no-ignore-vcs ignore-vcs no-ignore-parent ignore-parent no-ignore-dot ignore-dot
    no-ignore-global ignore-global no-ignore-exclude ignore-exclude no-ignore-files ignore-files
    no-require-git require-git follow no-follow files with-filename no-filename heading
    no-heading vimgrep json no-json column no-column byte-offset no-byte-offset multiline
    no-multiline multiline-dotall no-multiline-dotall pcre2 no-pcre2 auto-hybrid-regex
    no-auto-hybrid-regex text no-text binary no-binary crlf no-crlf null null-data trim no-trim
    no-messages messages no-ignore-messages ignore-messages stats no-stats sort-files
    no-sort-files passthru passthrough pretty no-config one-file-system no-one-file-system debug
    trace type-list line-buffered no-line-buffered block-buffered no-block-buffered no-unicode
    unicode mmap no-mmap include-zero no-include-zero max-columns-preview
    no-max-columns-preview glob-case-insensitive no-glob-case-insensitive
    ignore-file-case-insensitive no-ignore-file-case-insensitive pcre2-version no-pcre2-unicode
    pcre2-unicode no-pre no-search-zip no-context-separator help version`,
  longValued: `after-context before-context context context-separator field-context-separator
    field-match-separator path-separator regexp file glob iglob type type-not type-add
    type-clear replace ignore-file encoding engine threads max-count max-depth maxdepth
    max-filesize max-columns sort sortr color colors dfa-size-limit regex-size-limit`,
  cluster: true,
});

/** The Silver Searcher without `--pager` and `--search-zip`/`-z`. */
const ag = bySpec({
  flags: "acfFHilLnoQrsStuUvVw0",
  valued: "ABCgGmpW",
  long: `all-types all-text case-sensitive column nocolor count files-with-matches
    files-without-matches filename nofilename follow group nogroup heading noheading hidden
    ignore-case literal numbers nonumbers null only-matching print-long-lines search-binary
    silent skip-vcs-ignores smart-case stats unrestricted vimgrep word-regexp invert-match
    norecurse one-device list-file-types`,
  longValued: "after before context depth file-search-regex ignore ignore-dir max-count path-to-ignore width",
  longOptional: "color",
  cluster: true,
});

/** file(1) without `-C` (compile), `-p` (sets times), `-S` (no sandbox), `-z`/`-Z` (decompressors). */
const file = bySpec({
  flags: "bcdEhiklLNnrsv0",
  valued: "eFfmP",
  long: `brief mime mime-type mime-encoding apple extension keep-going list dereference
    no-dereference no-pad no-buffer raw special-files print0 debug help version`,
  longValued: "exclude exclude-quiet separator files-from magic-file parameter",
  cluster: true,
});

/** tree(1) without `-o` (output file), `-H`/`-R`/`-T` (HTML files). */
const tree = bySpec({
  flags: "adlfxqNQpugshDFvtcUrCnASJXi",
  valued: "LPI",
  long: `noreport dirsfirst filesfirst gitignore ignore-case matchdirs metafirst prune du si
    inodes device fromfile info help version`,
  longValued: "filelimit charset timefmt sort gitfile infofile",
  cluster: true,
});

/** `printf` reads `-v NAME` as "assign to NAME": the format must not be able to start with `-`. */
const printf: ReaderCheck = (args) => {
  const first = args[0];
  if (first === undefined || !anyWords(args)) return false;
  return first.value === "--" || (isExact(first) && cannotBeOption(first));
};

/** `docker`, `npm`, `pip` subcommands that only read, then words that can hide nothing. */
function subcommands(...subs: string[]): ReaderCheck {
  const set = new Set(subs);
  return (args) => set.has(args[0]?.value ?? "") && args.every(isInert);
}

/** `gh` views and lists, never `--web` (it starts a browser). */
const gh: ReaderCheck = (args) => {
  if (!args.every(isInert) || args.some((w) => w.value === "--web" || w.value === "-w")) return false;
  const two = `${args[0]?.value ?? ""} ${args[1]?.value ?? ""}`;
  return ["repo view", "issue list", "pr list"].includes(two) || args[0]?.value === "status";
};

/** Version queries that must stand alone. */
function versionQuery(...flags: string[]): ReaderCheck {
  return (args) => args.length === 1 && flags.includes(args[0]?.value ?? "");
}

/** Every reader, by command name. */
export const READERS: ReadonlyMap<string, ReaderCheck> = new Map([
  ["ls", anyWords],
  ["cat", anyWords],
  ["head", anyWords],
  ["tail", anyWords],
  ["more", anyWords],
  ["wc", anyWords],
  ["stat", anyWords],
  ["grep", anyWords],
  ["pwd", anyWords],
  ["echo", anyWords],
  ["true", anyWords],
  ["false", anyWords],
  ["cd", anyWords],
  ["which", anyWords],
  ["whereis", anyWords],
  ["type", anyWords],
  ["printf", printf],
  ["rg", rg],
  ["ag", ag],
  ["file", file],
  ["tree", tree],
  ["find", isReadOnlyFind],
  ["git", isReadOnlyGit],
  ["gh", gh],
  ["docker", subcommands("ps", "images", "inspect", "logs", "version", "info")],
  ["npm", subcommands("list", "ls")],
  ["pip", subcommands("list", "show")],
  ["python", versionQuery("--version", "-V")],
  ["python3", versionQuery("--version", "-V")],
  ["node", versionQuery("--version", "-v")],
]);
