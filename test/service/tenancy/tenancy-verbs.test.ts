/** The tenancy and webhook verbs on SQLite (the contract in tenancy-verbs-contract.ts). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openTestDb } from "../../support/test-db.js";
import { tenancyVerbsContract } from "./tenancy-verbs-contract.js";

tenancyVerbsContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tst-"));
  const opened = openTestDb(join(dir, "t.db"));
  return {
    db: opened.db,
    async close() {
      opened.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
