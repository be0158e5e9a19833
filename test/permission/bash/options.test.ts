import { describe, expect, it } from "vitest";
import { analyseBash } from "../../../src/permission/bash/analysis.js";
import { optionSpec, parseArgs, resolveLong, scanArgs } from "../../../src/permission/bash/options.js";
import type { Word } from "../../../src/permission/bash/words.js";
import { CWD, HOME } from "./context.js";

/** The argument words of `cmd …` as the analysis reads them. */
function words(args: string): Word[] {
  return analyseBash(`cmd ${args}`, CWD, HOME).commands[0]?.args ?? [];
}

const spec = optionSpec({
  flags: "abv",
  valued: "tS",
  attached: "i",
  long: "verbose force",
  longValued: "target-directory suffix",
  longOptional: "backup",
  cluster: true,
  numeric: true,
  abbrev: true,
});
const parse = (args: string) => {
  const p = parseArgs(words(args), spec);
  return (
    p && { options: p.options.map((o) => [o.name, o.value]), positionals: p.positionals.map((w) => w.value) }
  );
};

describe("parseArgs: options by the command's own rules", () => {
  it.each([
    [
      "-ab x",
      [
        ["-a", null],
        ["-b", null],
      ],
      ["x"],
    ],
    [
      "-vt/tmp f",
      [
        ["-v", null],
        ["-t", "/tmp"],
      ],
      ["f"],
    ],
    [
      "-vt /tmp f",
      [
        ["-v", null],
        ["-t", "/tmp"],
      ],
      ["f"],
    ],
    ["-tDIR", [["-t", "DIR"]], []],
    ["--target=/tmp f", [["--target-directory", "/tmp"]], ["f"]],
    ["--t /tmp", [["--target-directory", "/tmp"]], []],
    ["--backup f", [["--backup", null]], ["f"]],
    ["--backup=numbered", [["--backup", "numbered"]], []],
    ["-i.bak f", [["-i", ".bak"]], ["f"]],
    ["-20", [["-NUM", "20"]], []],
    ["f -a", [["-a", null]], ["f"]],
    ["-- -a *", [], ["-a", "*"]],
    ["src/*.ts", [], ["src/*.ts"]],
    ["-", [], ["-"]],
  ])("%j", (args, options, positionals) => {
    expect(parse(args)).toEqual({ options, positionals });
  });

  it.each([
    ["-x", "unknown short"],
    ["--nope", "unknown long"],
    ["--ver=1", "a value for a flag"],
    ["-t", "a missing value"],
    ["-t -a", "a next-word value starting with -"],
    ["--suffix --verbose", "a next-word long value starting with -"],
    ["-t *x", "a next-word value that is a leading glob"],
    ["*", "a leading glob before --"],
    ["-a*", "an option word with a glob"],
    ["{a,b}", "a brace expansion"],
    ["-- {a,b}", "a brace expansion after --"],
    ["$X", "an unknown word"],
  ])("%j fails: %s", (args) => {
    expect(parse(args)).toBeNull();
  });

  it("needs `abbrev` (a complete table) to accept prefixes, and refuses ambiguous ones", () => {
    expect(resolveLong("verb", spec)).toBe("verbose");
    expect(resolveLong("s", spec)).toBe("suffix");
    const exact = optionSpec({ long: "verbose version" });
    expect(resolveLong("verb", exact)).toBeNull();
    const both = optionSpec({ long: "verbose version", abbrev: true });
    expect(resolveLong("ver", both)).toBeNull();
    expect(resolveLong("version", both)).toBe("version");
  });

  it("reads groups one option per word when grouping is off", () => {
    const single = optionSpec({ flags: "ab" });
    expect(parseArgs(words("-a -b"), single)).not.toBeNull();
    expect(parseArgs(words("-ab"), single)).toBeNull();
  });

  it("stops at the first operand for wrappers", () => {
    const p = parseArgs(words("-a cmd -x"), spec, true);
    expect(p?.end).toBe(1);
    expect(parseArgs(words("-a -- cmd"), spec, true)?.end).toBe(2);
  });
});

describe("scanArgs: a reading for finding paths that never gives up", () => {
  it("keeps unknown words as operands and flags what it could not read", () => {
    const s = scanArgs(words("--nope $X -t dir f* -a"), spec);
    expect(s.unsure).toBe(true);
    expect(s.operands.map((w) => w.raw)).toEqual(["$X", "f*"]);
    expect(s.options.map((o) => [o.name, o.value])).toEqual([
      ["-t", "dir"],
      ["-a", null],
    ]);
  });

  it("keeps a glob option word as an operand", () => {
    const s = scanArgs(words("-t* x"), spec);
    expect(s.unsure).toBe(true);
    expect(s.operands.map((w) => w.raw)).toEqual(["-t*", "x"]);
  });
});
