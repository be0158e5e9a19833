import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkPermission } from "../../../src/permission/engine.js";
import { bash, bashCtx } from "./context.js";

/**
 * Dangerous commands, each with the one word that makes it dangerous: `[before, word, after]`.
 * `real` lists options of the same command that a prefix of the word may exactly name (git's
 * `--text` is not an abbreviation of `--textconv`): those prefixes are not generated.
 */
const DANGEROUS: { parts: [string, string, string]; real?: string[] }[] = [
  { parts: ["git log", "--output=/tmp/x", ""] },
  { parts: ["git diff", "--ext-diff", ""] },
  { parts: ["git show", "--ext-diff", "HEAD"] },
  { parts: ["git grep", "--open-files-in-pager=touch /tmp/p", "foo"] },
  { parts: ["git grep", "-O", "foo"] },
  { parts: ["git show", "--textconv", "HEAD"], real: ["--text"] },
  { parts: ["git cat-file", "--textconv", "HEAD:x"] },
  { parts: ["git", "-c", "core.pager=sh log"] },
  { parts: ["git", "--config-env=core.pager=P", "log"], real: ["--config"] },
  { parts: ["git", "--exec-path=/tmp", "status"] },
  { parts: ["git", "--git-dir=evil", "status"] },
  { parts: ["git log", "--show-signature", ""] },
  { parts: ["rg", "--pre=sh", "foo"] },
  { parts: ["rg", "--pre", "sh foo"] },
  { parts: ["rg", "--search-zip", "foo"] },
  { parts: ["rg", "-z", "foo"] },
  { parts: ["find .", "-exec", "touch /tmp/p \\;"] },
  { parts: ["find .", "-execdir", "touch /tmp/p \\;"] },
  { parts: ["find .", "-delete", ""] },
  { parts: ["find .", "-fprint", "/tmp/p"] },
  { parts: ["find .", "-fls", "/tmp/p"] },
  { parts: ["env", "-S", "'touch /tmp/p' cat"] },
  { parts: ["env", "--split-string=touch /tmp/p", "cat"] },
  { parts: ["xargs", "-I", "cat sh -c 'touch /tmp/p'"] },
  { parts: ["sed", "s/a/b/e", "f"] },
  { parts: ["sed", "s/a/b/w /tmp/p", "f"] },
  { parts: ["sed", "-i/tmp/*", "s/a/b/ f"] },
  { parts: ["cp", "--target-directory=/tmp", "f"], real: ["--target-directory"] },
  { parts: ["printf", "-v", "PATH /tmp"] },
];

/** One piece of a word spelt with a random kind of quoting (bash reads the same text). */
function quotePiece(piece: string, kind: number): string {
  if (piece === "") return "";
  switch (kind) {
    case 0:
      return `'${piece.replaceAll("'", "'\\''")}'`;
    case 1:
      return `"${piece.replace(/[$`"\\]/g, "\\$&")}"`;
    case 2:
      return piece.replace(/[^A-Za-z0-9]/g, "\\$&");
    case 3:
      return `$'${piece.replace(/[\\']/g, "\\$&")}'`;
    default:
      return /^[A-Za-z0-9_./=:-]+$/.test(piece) ? piece : `'${piece}'`;
  }
}

/** The word cut at random points, each piece quoted its own way. */
const quoted = (word: string) =>
  fc.array(fc.tuple(fc.nat(word.length), fc.nat(4)), { minLength: 1, maxLength: 4 }).map((cuts) => {
    const points = [...new Set(cuts.map(([p]) => p))].sort((a, b) => a - b);
    let out = "";
    let from = 0;
    points.forEach((p, k) => {
      out += quotePiece(word.slice(from, p), cuts[k]?.[1] ?? 0);
      from = p;
    });
    return out + quotePiece(word.slice(from), cuts[0]?.[1] ?? 0);
  });

/** `--name=v` shortened to a prefix of its name (getopt and git accept unambiguous ones). */
function abbreviated(word: string, real: string[] = []): fc.Arbitrary<string> {
  const m = /^--([^=]+)(=.*)?$/.exec(word);
  if (!m) return fc.constant(word);
  const name = m[1] as string;
  return fc
    .integer({ min: 1, max: name.length })
    .map((n) => `--${name.slice(0, n)}${m[2] ?? ""}`)
    .filter((w) => !real.includes(w.split("=")[0] as string));
}

/** The word with its blanks escaped, so it stays one word outside quotes. */
const bare = (word: string) => word.replaceAll(" ", "\\ ");

/** The word hidden in a brace expansion that yields it. */
const braced = (word: string) =>
  fc.oneof(
    fc.constant(`{${word},}`),
    fc.constant(`{,${word}}`),
    fc.constant(`{${word},x}`),
    fc
      .integer({ min: 1, max: Math.max(1, word.length - 1) })
      .map((k) => `${word.slice(0, k)}{${word.slice(k)},}`),
  );

/** A glob that matches a planted file named like the word. */
const globbed = (word: string) =>
  fc.oneof(
    fc.constant("*"),
    fc.constant(`${word[0]}*`),
    fc
      .integer({ min: 0, max: word.length - 1 })
      .map((k) => `${word.slice(0, k)}[${word[k]}]${word.slice(k + 1)}`),
    fc.integer({ min: 0, max: word.length - 1 }).map((k) => `${word.slice(0, k)}?${word.slice(k + 1)}`),
  );

/** The word broken by line continuations, which bash removes (tree-sitter splits the word there). */
const continued = (word: string) =>
  fc
    .array(fc.integer({ min: 1, max: Math.max(1, word.length - 1) }), { minLength: 1, maxLength: 3 })
    .map((cuts) => {
      let out = word;
      for (const k of [...new Set(cuts)].sort((a, b) => b - a)) out = `${out.slice(0, k)}\\\n${out.slice(k)}`;
      return bare(out);
    });

/** The dangerous command after a here-document whose delimiter bash and tree-sitter may read differently. */
const afterHeredoc = (line: string) =>
  fc
    .tuple(quoted("EOF"), fc.boolean())
    .map(([delim, dash]) => `cat <<${dash ? "-" : ""}${delim}\nhi\nEOF\n${line}\n${delim}`);

const join = (parts: string[]) => parts.filter((p) => p !== "").join(" ");

/** A dangerous command with its dangerous word respelt 1–2 ways, maybe after safe commands. */
const disguised = fc
  .constantFrom(...DANGEROUS)
  .chain(({ parts: [before, word, after], real }) =>
    fc
      .oneof(
        quoted(word),
        abbreviated(word, real).chain(quoted),
        braced(bare(word)),
        globbed(bare(word)),
        continued(word),
      )
      .map((w) => join([before, w, after])),
  )
  .chain((line) =>
    fc.oneof(
      fc.constant(line),
      afterHeredoc(line),
      fc.constantFrom("ls && ", "git status; ", "echo ok | ", "LC_ALL=C ").map((p) => p + line),
    ),
  );

const MODES = ["default", "explore", "accept_edits"] as const;

describe("no spelling of a dangerous option is ever allowed (property)", () => {
  it("the undisguised commands are refused", () => {
    for (const { parts } of DANGEROUS) {
      const command = join(parts);
      for (const mode of MODES) {
        expect(checkPermission(bash, { command }, bashCtx(mode)).behavior, `${mode}: ${command}`).not.toBe(
          "allow",
        );
      }
    }
  });

  it("quoted, abbreviated, braced, globbed, continued and here-doc spellings never yield allow", () => {
    fc.assert(
      fc.property(disguised, fc.constantFrom(...MODES), (command, mode) => {
        const d = checkPermission(bash, { command }, bashCtx(mode));
        expect(d.behavior, `${mode}: ${JSON.stringify(command)}`).not.toBe("allow");
        expect(bash.checkReadOnly({ command }, bashCtx())).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it("the same quoting of harmless options keeps them allowed (no needless asks)", () => {
    const safe = fc
      .constantFrom(
        ["git log", "--oneline", "-n 5"],
        ["git diff", "--stat", ""],
        ["rg", "--hidden", "foo src"],
        ["find .", "-name", "'*.ts'"],
        ["grep", "-rn", "'=>' src"],
      )
      .chain(([before, word, after]) =>
        quoted(word as string).map((w) => join([before as string, w, after as string])),
      );
    fc.assert(
      fc.property(safe, (command) => {
        expect(checkPermission(bash, { command }, bashCtx("default")).behavior, command).toBe("allow");
      }),
      { numRuns: 200 },
    );
  });
});
