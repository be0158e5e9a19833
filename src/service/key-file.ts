/** Server secrets: a key file in `<dataDir>/<name>` (32 random bytes, created 0600 exclusively once), or derived from the configured key. */
import { hkdfSync, randomBytes } from "node:crypto";
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

/**
 * A server key every host agrees on: derived from the configured secret key when there is one
 * (several API hosts must accept each other's console cookies), else this host's key file.
 * Derived per purpose (HKDF with the name), so one purpose's key never serves another.
 */
export function serverKey(dataDir: string, name: string, secretKey?: Buffer): Buffer {
  if (!secretKey) return readOrCreateKeyFile(dataDir, name);
  return Buffer.from(hkdfSync("sha256", secretKey, Buffer.alloc(0), `toolshed ${name}`, 32));
}
