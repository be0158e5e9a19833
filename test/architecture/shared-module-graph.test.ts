/**
 * The integration projects run every file in one module graph (`isolate: false` in
 * vitest.config.ts: importing the service afresh for each file cost minutes of a CI run). A module
 * mock there would either not take (the module is already loaded) or leak into every later file,
 * and a spy or a changed global would outlive its file: those files must use a seam instead (the
 * harness's `launch`, a provider's options). Stubbed environment variables are restored after each
 * test (`unstubEnvs`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { integrationFiles, LEAKS } from "../support/suite-layout.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

it("no integration test file mocks a module, spies or changes a global", () => {
  const files = integrationFiles(ROOT);
  expect(files.length).toBeGreaterThan(100);
  const found = files.flatMap((f) =>
    readFileSync(join(ROOT, f), "utf8")
      .split("\n")
      .flatMap((line, i) => (LEAKS.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(found).toEqual([]);
});
