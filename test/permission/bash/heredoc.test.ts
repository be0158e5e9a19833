import { describe, expect, it } from "vitest";
import { analyseBash } from "../../../src/permission/bash/analysis.js";
import { bashEnd, heredocDelimiter } from "../../../src/permission/bash/heredoc.js";
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

describe("bashEnd: where bash ends a body (read_a_line when unquoted)", () => {
  it.each([
    ["x\nEOF\nls", false, 5],
    ["EO\\\nF\nls", false, 5],
    ["x\\\nEOF\nEOF", false, 10],
    ["x\\\\\nEOF", false, 7],
    ["\tEOF", true, 4],
    ["\tEOF\nEOF", false, 8],
    ["x\nEOFx", false, -1],
    ["x\nEOF \nEOF", false, 10],
  ])("%j (strip tabs: %s) ends at %d", (body, strip, end) => {
    expect(bashEnd(body, 0, "EOF", strip)).toBe(end);
  });
});
