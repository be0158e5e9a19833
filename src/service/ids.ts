/** Prefixed random identifiers and API key secrets (never autoincrement integers). */
import { createHash, randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

function randomString(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const b of bytes) out += ALPHABET[b % 36];
  return out;
}

export type IdPrefix = "ten" | "key" | "ses" | "job" | "aud";

/** `ten_…`, `key_…`, `ses_…`, `job_…`: 20 random base-36 characters (~103 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomString(20)}`;
}

/** A new API key secret; only its hash is stored. */
export function newKeySecret(): string {
  return `tsk_${randomBytes(32).toString("base64url")}`;
}

export function hashKey(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function nowIso(): string {
  return new Date().toISOString();
}
