/** Fills a small test filesystem on purpose (a tmpfs the test mounted). */
import { closeSync, openSync, writeSync } from "node:fs";

/**
 * Appends to `file` until its filesystem is full (ENOSPC), down to the last byte; run as root, a
 * tmpfs keeps no blocks in reserve. The bytes written.
 */
export function fillDisk(file: string): number {
  const fd = openSync(file, "a");
  let n = 0;
  try {
    for (const size of [1 << 20, 4096, 1]) {
      const chunk = Buffer.alloc(size);
      try {
        for (;;) n += writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return n;
}
