/** The per-call configuration caches on SQLite (config-caches-contract.ts): two handles on one file. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../../src/db/open.js";
import { openTestDb } from "../support/test-db.js";
import { configCachesContract } from "./config-caches-contract.js";

configCachesContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsc-"));
  const file = join(dir, "t.db");
  const here = openTestDb(file);
  const elsewhere = openDb(file);
  return {
    here: here.db,
    elsewhere: elsewhere.db,
    async close() {
      elsewhere.close();
      here.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
