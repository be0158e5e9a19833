/**
 * The integration projects run two files at a time, except the files that declare
 * `// suite: serial — …` (test/support/suite-layout.ts). A file whose code may touch what the
 * others share must say which it is; vitest.config.ts must put each file where it says.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import config from "../../vitest.config.js";
import {
  declarations,
  integrationFiles,
  integrationLayout,
  sharedStateLines,
  unitLayout,
} from "../support/suite-layout.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const files = integrationFiles(ROOT);
const source = (f: string) => readFileSync(join(ROOT, f), "utf8");

it("a file whose code may touch what other files share declares whether it runs alone", () => {
  expect(files.length).toBeGreaterThan(100);
  const undeclared = files.flatMap((f) => {
    const lines = sharedStateLines(source(f));
    if (lines.length === 0 || declarations(source(f)).length > 0) return [];
    return [
      `${f} may touch what other integration files share:\n  ${lines.join("\n  ")}\n` +
        "Add a line `// suite: serial — <what it touches>` (it then runs alone, after the others) or " +
        "`// suite: parallel — <why it is safe next to another file>` (see test/support/suite-layout.ts).",
    ];
  });
  expect(undeclared).toEqual([]);
});

it("each declaration is one exact line", () => {
  const wrong = files.flatMap((f) => {
    const text = source(f);
    const loose = text.split("\n").filter((l) => /^\s*(\/\/|\*)\s*suite\s*:/.test(l));
    const exact = declarations(text).length;
    return loose.length !== exact || exact > 1 ? [`${f}: ${loose.join(" | ")}`] : [];
  });
  expect(wrong, "write `// suite: serial — why` or `// suite: parallel — why`, once, at column 0").toEqual(
    [],
  );
});

type ProjectTest = {
  include: string[];
  isolate?: boolean;
  fileParallelism?: boolean;
  sequence: { groupOrder: number };
};

it("vitest.config.ts runs the serial files alone, after the rest, and every file once", () => {
  const projects = new Map(
    (config.test?.projects ?? []).map((p) => {
      const t = (p as { test: ProjectTest & { name: string } }).test;
      return [t.name, t] as const;
    }),
  );
  const project = (name: string): ProjectTest => {
    const p = projects.get(name);
    if (!p) throw new Error(`vitest.config.ts has no project ${name}`);
    return p;
  };
  const layout = integrationLayout(ROOT);
  expect(layout.serial.length).toBeGreaterThan(0);
  expect(project("integration").include).toEqual(layout.parallel);
  expect(project("integration-serial").include).toEqual(layout.serial);
  for (const f of project("integration-pg").include) expect(layout.parallel).toContain(f);
  for (const f of project("integration-pg-serial").include) expect(layout.serial).toContain(f);
  // A unit file that mocks, spies or changes a global runs in a module graph of its own.
  const units = unitLayout(ROOT);
  expect(units.isolated.length).toBeGreaterThan(0);
  expect(project("unit").include).toEqual(units.shared);
  expect(project("unit-isolated").include).toEqual(units.isolated);
  expect(project("unit").isolate).toBe(false);
  expect(project("unit-isolated").isolate).toBeUndefined();
  // Alone: one worker, in a later group than every project that runs files side by side.
  for (const alone of ["integration-serial", "integration-pg-serial"]) {
    expect(project(alone).fileParallelism).toBe(false);
    for (const other of ["unit", "unit-isolated", "integration", "integration-pg"]) {
      expect(project(alone).sequence.groupOrder).toBeGreaterThan(project(other).sequence.groupOrder);
    }
  }
});
