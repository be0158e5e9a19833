/**
 * Random bytes cut from a pool filled 4 KiB at a time (as `randomUUID` does): a `randomBytes`
 * call per id cost ~4 µs of a call's CPU (a buffer and a trip into OpenSSL each), and a warm call
 * makes several (its job and audit ids, its trace and span ids). Every byte is handed out once.
 */
import { randomFillSync } from "node:crypto";

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
let used = POOL_BYTES;

/**
 * `n` fresh random bytes (at most 4096), given to `read` as `pool[start, start + n)`; `read` must
 * copy what it keeps before it returns (the pool is refilled later).
 */
export function withRandomBytes<T>(n: number, read: (pool: Buffer, start: number, end: number) => T): T {
  if (n > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} random bytes at a time`);
  if (used + n > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const start = used;
  used += n;
  return read(pool, start, used);
}
