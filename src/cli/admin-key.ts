/**
 * A generated admin key is written to `<DATA_DIR>/admin.key` (mode 0600; a stale file of an
 * earlier database is replaced) and only that path is logged: the key never reaches a log file.
 */
import { closeSync, constants, fchmodSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "../log.js";

export const ADMIN_KEY_FILE = "admin.key";

export function announceAdminKey(dataDir: string, key: string, logger: Logger): void {
  mkdirSync(dataDir, { recursive: true });
  const file = resolve(join(dataDir, ADMIN_KEY_FILE));
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${key}\n`);
  } finally {
    closeSync(fd);
  }
  logger.warn(
    { file },
    "admin key generated and written to this file (mode 0600): read it, store it, delete the file",
  );
}
