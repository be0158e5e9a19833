import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { serverKey } from "../../src/service/key-file.js";

const dirs: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), "tskey-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it("with a configured key, hosts with different data folders derive the same key and write no file", () => {
  const secret = randomBytes(32);
  const [a, b] = [dir(), dir()];
  const ka = serverKey(a, "console.key", secret);
  expect(ka).toHaveLength(32);
  expect(serverKey(b, "console.key", secret).equals(ka)).toBe(true);
  expect(readdirSync(a)).toEqual([]);
});

it("each purpose gets its own key, and none is the configured key itself", () => {
  const secret = randomBytes(32);
  const d = dir();
  const consoleKey = serverKey(d, "console.key", secret);
  expect(consoleKey.equals(serverKey(d, "other.key", secret))).toBe(false);
  expect(consoleKey.equals(secret)).toBe(false);
  expect(consoleKey.equals(serverKey(d, "console.key", randomBytes(32)))).toBe(false);
});

it("without a configured key, each data folder keeps its own key file", () => {
  const [a, b] = [dir(), dir()];
  const ka = serverKey(a, "console.key");
  expect(serverKey(a, "console.key").equals(ka)).toBe(true);
  expect(serverKey(b, "console.key").equals(ka)).toBe(false);
  expect(readdirSync(a)).toEqual(["console.key"]);
});
