/** Prefixed random identifiers (never autoincrement integers). */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

function randomString(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const b of bytes) out += ALPHABET[b % 36];
  return out;
}

export type IdPrefix = "ten" | "key" | "ses" | "job" | "aud" | "whd";

/** `ten_…`, `key_…`, `ses_…`, `job_…`: 20 random base-36 characters (~103 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomString(20)}`;
}
