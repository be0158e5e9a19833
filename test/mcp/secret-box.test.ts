/** The secret box: AES-256-GCM round trip, bound to its context, tamper-evident, key file 0600. */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SecretBox } from "../../src/service/secret-box.js";

const dir = mkdtempSync(join(tmpdir(), "tsb-secret-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SecretBox", () => {
  const box = SecretBox.fromKey(randomBytes(32));
  const value = { headers: { authorization: "Bearer s3cret" } };

  it("round-trips a value and never holds it in clear", () => {
    const sealed = box.seal(value, "mcp:t:a");
    expect(sealed).not.toContain("s3cret");
    expect(sealed.startsWith("v1.")).toBe(true);
    expect(box.open(sealed, "mcp:t:a")).toEqual(value);
    expect(box.seal(value, "mcp:t:a")).not.toBe(sealed);
  });

  it.each([
    ["another context", (s: string) => [s, "mcp:other:a"]],
    [
      "a tampered body",
      (s: string) => [s.replace(/\.([^.])/, (_m, c) => `.${c === "A" ? "B" : "A"}`), "mcp:t:a"],
    ],
    ["a malformed value", () => ["v1.x", "mcp:t:a"]],
  ])("refuses %s", (_name, change) => {
    const [sealed, ctx] = change(box.seal(value, "mcp:t:a")) as [string, string];
    expect(() => box.open(sealed, ctx)).toThrow();
  });

  it("refuses another key", () => {
    const sealed = box.seal(value, "c");
    expect(() => SecretBox.fromKey(randomBytes(32)).open(sealed, "c")).toThrow();
  });

  it("creates <dataDir>/secret.key once, mode 0600, and reuses it", () => {
    const a = SecretBox.fromDataDir(dir);
    const key = readFileSync(join(dir, "secret.key"), "utf8");
    expect(statSync(join(dir, "secret.key")).mode & 0o777).toBe(0o600);
    const b = SecretBox.fromDataDir(dir);
    expect(readFileSync(join(dir, "secret.key"), "utf8")).toBe(key);
    expect(b.open(a.seal(value, "c"), "c")).toEqual(value);
  });
});
