/** The JobStore contract on SQLite: two connections to one database file. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openDb } from "../../src/db/open.js";
import { audit, sessions } from "../../src/db/schema.js";
import { DbReadCache } from "../../src/db/stores/read-cache-store.js";
import { SqliteJobStore } from "../../src/db/stores/sqlite-job-store.js";
import { seedDialectSession } from "../support/dialects.js";
import { openTestDb } from "../support/test-db.js";
import { storeContract } from "./store-contract.js";

// The SQLite schema gains jobs.host_id with the hosts work (its migration 0005).
storeContract("sqlite", { recordsHostId: true, exactLaterCalls: true }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "tss-"));
  const file = join(dir, "t.db");
  const a = openTestDb(file);
  const b = openDb(file);
  return {
    store: new SqliteJobStore(a.db),
    other: new SqliteJobStore(b.db),
    readCache: new DbReadCache(a.db),
    async seedSession() {
      const sessionId = `ses_${Math.random().toString(36).slice(2)}`;
      return { sessionId, ...(await seedDialectSession(a.db, sessionId)) };
    },
    async session(id) {
      return a.db.select().from(sessions).where(eq(sessions.id, id)).get()!;
    },
    async pin(sessionId, hostId) {
      a.db.update(sessions).set({ hostId }).where(eq(sessions.id, sessionId)).run();
    },
    async retire(sessionId) {
      a.db.update(sessions).set({ status: "deleted" }).where(eq(sessions.id, sessionId)).run();
    },
    async auditKinds(jobId) {
      const rows = a.db.select({ kind: audit.kind }).from(audit).where(eq(audit.jobId, jobId)).all();
      return rows.map((r) => r.kind).sort();
    },
    async close() {
      a.close();
      b.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
