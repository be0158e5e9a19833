import { describe, expect, it } from "vitest";
import { unifiedDiff } from "../../src/toolkit/diff.js";

describe("unifiedDiff", () => {
  it("shows a new file against /dev/null", () => {
    expect(unifiedDiff("/w/a.txt", null, "one\ntwo\n")).toBe(
      "--- /dev/null\n+++ b//w/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n",
    );
  });

  it("keeps three lines of context and merges nearby changes into one hunk", () => {
    const before = `${Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n")}\n`;
    const after = before.replace("l10\n", "L10\n").replace("l12\n", "L12\n");
    expect(unifiedDiff("/f", before, after)).toBe(
      [
        "--- a//f",
        "+++ b//f",
        "@@ -7,9 +7,9 @@",
        " l7",
        " l8",
        " l9",
        "-l10",
        "+L10",
        " l11",
        "-l12",
        "+L12",
        " l13",
        " l14",
        " l15",
        "",
      ].join("\n"),
    );
  });

  it("splits far-apart changes into separate hunks", () => {
    const before = `${Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join("\n")}\n`;
    const after = before.replace("l2\n", "X\n").replace("l28\n", "Y\n");
    const diff = unifiedDiff("/f", before, after);
    expect(diff.match(/^@@/gm)).toHaveLength(2);
    expect(diff).toContain("@@ -1,5 +1,5 @@");
    expect(diff).toContain("@@ -25,6 +25,6 @@");
  });

  it("marks a missing final newline and is empty when nothing changed", () => {
    expect(unifiedDiff("/f", "a\n", "a\nb")).toBe(
      "--- a//f\n+++ b//f\n@@ -1 +1,2 @@\n a\n+b\n\\ No newline at end of file\n",
    );
    expect(unifiedDiff("/f", "same\n", "same\n")).toBe("");
  });
});
