import { describe, expect, it } from "vitest";
import { analyseBash } from "../../../src/permission/bash/analysis.js";
import { heredocDelimiter } from "../../../src/permission/bash/heredoc.js";
import { CWD, HOME } from "./context.js";

describe("heredocDelimiter: bash's quote removal", () => {
  it.each([
    ["EOF", "EOF", false],
    ["'EOF'", "EOF", true],
    ['"EOF"', "EOF", true],
    ['E"O"F', "EOF", true],
    ["E'O'F", "EOF", true],
    ["\\EOF", "EOF", true],
    ["E\\OF", "EOF", true],
    ['"E\\"F"', 'E"F', true],
    ["'E O F'", "E O F", true],
  ])("%j → %j (quoted: %s)", (raw, text, quoted) => {
    expect(heredocDelimiter(raw)).toEqual({ text, quoted });
  });

  it.each(["$'EOF'", '$"EOF"', "'EOF", '"EOF'])("%j is not modelled", (raw) => {
    expect(heredocDelimiter(raw)).toBeNull();
  });
});

describe("here-documents end where bash ends them", () => {
  const texts = (c: string) => analyseBash(c, CWD, HOME).commands.map((x) => x.text);

  it("splits the lines after a partly quoted delimiter into commands", () => {
    expect(texts('cat <<E"O"F\nhi\nEOF\ntouch x\nE"O"F')).toEqual([
      "cat <<'EOF'\nhi\nEOF",
      "touch x",
      'E"O"F',
    ]);
  });

  it("leaves well-formed here-documents alone", () => {
    const a = analyseBash("cat <<'EOF'\nx\nEOF\nls", CWD, HOME);
    expect(a.commands.map((x) => x.name)).toEqual(["cat", "ls"]);
    expect(a.hasError).toBe(false);
  });

  it("treats a delimiter it cannot respell as a syntax error", () => {
    expect(analyseBash("cat <<$'EOF'\nEOF\nls", CWD, HOME).hasError).toBe(true);
  });
});
