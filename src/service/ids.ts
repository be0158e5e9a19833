/** Prefixed random identifiers (never autoincrement integers). */
import { withRandomBytes } from "../random-pool.js";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

function randomString(length: number): string {
  return withRandomBytes(length, (pool, start, end) => {
    let out = "";
    for (let i = start; i < end; i++) out += ALPHABET[pool[i]! % 36];
    return out;
  });
}

export type IdPrefix = "ten" | "key" | "ses" | "job" | "aud" | "whd";

let lastStamp = 0;

/**
 * 11 base-36 characters that rise with every call in this process: milliseconds × 1024 plus a
 * count within the millisecond (safe integers until the year 2248).
 */
function risingStamp(): string {
  lastStamp = Math.max(Date.now() * 1024, lastStamp + 1);
  return lastStamp.toString(36).padStart(11, "0");
}

/**
 * `ten_…`, `key_…`, `ses_…`, `job_…`: 20 random base-36 characters (~103 bits). Audit ids
 * (`aud_…`) start with a rising stamp and end with 9 random characters: the trail orders the
 * entries of one millisecond by id, in the order they were written (both dialects; no rowid).
 */
export function newId(prefix: IdPrefix): string {
  if (prefix === "aud") return `${prefix}_${risingStamp()}${randomString(9)}`;
  return `${prefix}_${randomString(20)}`;
}
