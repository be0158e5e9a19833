/**
 * Encrypts tenant secrets at rest (MCP headers and env): AES-256-GCM, a fresh 12-byte nonce per
 * value, the tenant and server name as associated data (a ciphertext copied to another row
 * does not decrypt). The key is `<dataDir>/secret.key`, 32 random bytes created 0600 once.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { readOrCreateKeyFile } from "./key-file.js";

const VERSION = "v1";
const KEY_FILE = "secret.key";

/** Seals and opens small JSON values. */
export class SecretBox {
  private constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("the secret key must be 32 bytes");
  }

  /** Reads `<dataDir>/secret.key`, creating it (0600, exclusive) on first start. */
  static fromDataDir(dataDir: string): SecretBox {
    return new SecretBox(readOrCreateKeyFile(dataDir, KEY_FILE));
  }

  /** For tests and for keys handed in by configuration. */
  static fromKey(key: Buffer): SecretBox {
    return new SecretBox(key);
  }

  /** `v1.<nonce>.<ciphertext>.<tag>`, base64url parts. */
  seal(value: unknown, context: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, nonce);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
    return [VERSION, nonce, body, cipher.getAuthTag()]
      .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
      .join(".");
  }

  /** Throws when the value was tampered with, sealed for another context or with another key. */
  open<T>(sealed: string, context: string): T {
    const [version, nonce, body, tag] = sealed.split(".");
    if (version !== VERSION || !nonce || body === undefined || !tag) throw new Error("malformed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(nonce, "base64url"));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    const text = Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]);
    return JSON.parse(text.toString("utf8")) as T;
  }
}
