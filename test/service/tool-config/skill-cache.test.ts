/** The skill store and host cache contract on SQLite (a fresh database file per test). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openTestDb } from "../../support/test-db.js";
import { skillCacheContract } from "./skill-cache-contract.js";

skillCacheContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsd-"));
  const opened = openTestDb(join(dir, "t.db"));
  return {
    db: opened.db,
    async close() {
      opened.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
