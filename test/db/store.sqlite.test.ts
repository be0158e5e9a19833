/** The JobStore contract on SQLite: two connections to one database file. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openDb } from "../../src/db/open.js";
import { audit, sessions, tenants } from "../../src/db/schema.js";
import { SqliteJobStore } from "../../src/db/stores/sqlite-job-store.js";
import { openTestDb } from "../support/test-db.js";
import { storeContract } from "./store-contract.js";

// The SQLite schema gains jobs.host_id with the hosts work (its migration 0005).
storeContract("sqlite", { recordsHostId: false }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "tss-"));
  const file = join(dir, "t.db");
  const a = openTestDb(file);
  const b = openDb(file);
  return {
    store: new SqliteJobStore(a.db),
    other: new SqliteJobStore(b.db),
    async seedSession() {
      const now = new Date().toISOString();
      const tenantId = `ten_${Math.random().toString(36).slice(2)}`;
      const sessionId = `ses_${Math.random().toString(36).slice(2)}`;
      a.db.insert(tenants).values({ id: tenantId, name: "t", createdAt: now }).run();
      a.db
        .insert(sessions)
        .values({
          id: sessionId,
          tenantId,
          mode: "default",
          cwd: "/workspace",
          home: "/home/agent",
          workingDirectories: [],
          rules: { allow: [], deny: [], ask: [] },
          status: "active",
          createdAt: now,
          lastUsedAt: now,
        })
        .run();
      return { tenantId, sessionId };
    },
    async session(id) {
      return a.db.select().from(sessions).where(eq(sessions.id, id)).get()!;
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
