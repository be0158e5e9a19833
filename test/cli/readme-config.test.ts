/**
 * newcomer24: the README's Configuration section and `src/config.ts` agree. Every variable it
 * names is one the service reads, and every default it states, `NAME (default…)`, is the default
 * the code has.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { Config } from "../../src/config.js";

const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");
const section = readme.slice(
  readme.indexOf("\n## Configuration"),
  readme.indexOf("\n## ", readme.indexOf("\n## Configuration") + 1),
);

it("names only variables src/config.ts reads", () => {
  const named = [...section.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT|HOST)`/g)].map((m) => m[1]!);
  expect(named.length).toBeGreaterThan(20);
  expect(named.filter((n) => !(n in Config.shape))).toEqual([]);
});

it("states the defaults the code has", () => {
  const defaults = Config.parse({}) as Record<string, unknown>;
  // `NAME` (8080), (`on`; …), (120000: …), (./data), (redis://…): the default is the first word.
  const stated = [...section.matchAll(/`([A-Z][A-Z0-9_]*)` \(`?([^`;:)\s]+(?::\/\/[^`;)\s]+)?)`?/g)].map(
    (m) => [m[1]!, m[2]!] as const,
  );
  expect(stated.length).toBeGreaterThan(12);
  const wrong = stated
    .filter(([, said]) => !["else", "unset", "empty"].includes(said))
    .filter(([name, said]) => String(defaults[name]) !== said)
    .map(([name, said]) => `${name}: README ${said}, code ${String(defaults[name])}`);
  expect(wrong).toEqual([]);
});
