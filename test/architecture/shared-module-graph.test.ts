/**
 * The integration projects run every file in one module graph (`isolate: false` in
 * vitest.config.ts: importing the service afresh for each file cost minutes of a CI run). A module
 * mock there would either not take (the module is already loaded) or leak into every later file,
 * and a spy or a changed global would outlive its file: those files must use a seam instead (the
 * harness's `launch`, a provider's options). Stubbed environment variables are restored after each
 * test (`unstubEnvs`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function integrationFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return integrationFiles(path);
    return e.name.endsWith(".int.test.ts") ? [path] : [];
  });
}

/** What changes a module or a global for the rest of the process. */
const LEAKS = /\bvi\.(mock|doMock|spyOn|stubGlobal|useFakeTimers)\(|\bglobalThis\.\w+\s*=[^=]/;

it("no integration test file mocks a module, spies or changes a global", () => {
  const files = integrationFiles(join(ROOT, "test"));
  expect(files.length).toBeGreaterThan(100);
  const found = files.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .flatMap((line, i) => (LEAKS.test(line) ? [`${relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(found).toEqual([]);
});
