/**
 * src/ holds no AsyncLocalStorage and no async_hooks `createHook`: on Node 20, once any ALS has
 * run in the process (or a hook is enabled), every promise pays async hooks' init/before/after,
 * ~4-8 % of the service thread's CPU per call (tput28, docs/notes/NOTES-tput28.md §2.1). The log
 * context and the MCP call's headers are passed explicitly instead (src/log.ts, mcp-client.ts).
 * A scan, since nothing else would fail: the context would still work, only slower.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Code, not comments (src/log.ts names what it does not use). */
const USES =
  /^(?!\s*(\/\/|\*|\/\*)).*\b(AsyncLocalStorage|AsyncResource|createHook|executionAsyncResource)\b/m;
const IMPORTS = /from\s+["'](node:)?async_hooks["']|require\(["'](node:)?async_hooks["']\)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

it("src/ uses no AsyncLocalStorage, async_hooks import or createHook", () => {
  const found = sources(join(ROOT, "src")).flatMap((file) => {
    const text = readFileSync(file, "utf8");
    return USES.test(text) || IMPORTS.test(text) ? [relative(ROOT, file)] : [];
  });
  expect(found, "pass the context explicitly (a child logger, an argument): src/log.ts says why").toEqual([]);
});

it("the scan sees a use", () => {
  expect(USES.test("const c = new AsyncLocalStorage<string>();")).toBe(true);
  expect(IMPORTS.test('import { createHook } from "node:async_hooks";')).toBe(true);
  expect(USES.test(" * Not an `AsyncLocalStorage`: on Node 20 ...")).toBe(false);
});
