/**
 * docs/notes/README.md is the way into the engineering notes: it lists every note once, and every
 * link in it (and every docs/notes path the README names) leads to a file that exists.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const NOTES = join(import.meta.dirname, "../../docs/notes");
const index = readFileSync(join(NOTES, "README.md"), "utf8");
const linked = [...index.matchAll(/\]\((NOTES-[\w-]+\.md)\)/g)].map((m) => m[1]!);

it("lists every note exactly once", () => {
  const files = readdirSync(NOTES)
    .filter((f) => /^NOTES-.*\.md$/.test(f))
    .sort();
  expect([...linked].sort()).toEqual(files);
  expect(new Set(linked).size).toBe(linked.length);
});

it("the README's paths into docs/notes exist", () => {
  const readme = readFileSync(join(NOTES, "../../README.md"), "utf8");
  const named = [...readme.matchAll(/docs\/notes\/([\w.-]+\.md)/g)].map((m) => m[1]!);
  expect(named.length).toBeGreaterThan(0);
  expect(named.filter((f) => !existsSync(join(NOTES, f)))).toEqual([]);
});
