/** The session verbs on SQLite (the contract in session-verbs-contract.ts). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteJobStore } from "../../../src/db/stores/sqlite-job-store.js";
import { openTestDb } from "../../support/test-db.js";
import { sessionVerbsContract } from "./session-verbs-contract.js";

sessionVerbsContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsv-"));
  const opened = openTestDb(join(dir, "t.db"));
  return {
    db: opened.db,
    store: new SqliteJobStore(opened.db),
    async close() {
      opened.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
