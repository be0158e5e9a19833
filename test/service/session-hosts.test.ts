/** Session placement on SQLite: two connections to one database file (two workers' view). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../../src/db/open.js";
import { openTestDb } from "../support/test-db.js";
import { placementContract } from "./session-hosts-contract.js";

placementContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tst-hosts-"));
  const file = join(dir, "t.db");
  const a = openTestDb(file);
  const b = openDb(file);
  return {
    a: a.db,
    b: b.db,
    async close() {
      b.close();
      a.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
