/** A server secret kept in `<dataDir>/<name>`: 32 random bytes, created 0600 (exclusively) once. */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function readOrCreateKeyFile(dataDir: string, name: string): Buffer {
  const path = join(dataDir, name);
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(path, randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" });
  } catch (err) {
    // Another process (or an earlier start) made it first: everyone reads the same key.
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return Buffer.from(readFileSync(path, "utf8").trim(), "base64");
}
