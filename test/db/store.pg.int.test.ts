/**
 * The JobStore contract on Postgres (two pools: two processes' connections), and the
 * migrations: two processes migrating one fresh database at once both succeed. Postgres comes
 * from scripts/postgres.sh; outside CI the file skips when it cannot be started on this machine.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { asc, eq, is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDbMigrate } from "../../src/cli/database.js";
import type { Db } from "../../src/db/db.js";
import { type OpenedPg, openPg } from "../../src/db/pg/open-pg.js";
import { PgJobStore } from "../../src/db/pg/pg-job-store.js";
import * as pgSchema from "../../src/db/pg/schema.js";
import { audit, sessions } from "../../src/db/pg/schema.js";
import { DbReadCache } from "../../src/db/stores/read-cache-store.js";
import { seedDialectSession } from "../support/dialects.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../support/postgres.js";
import { storeContract } from "./store-contract.js";

const server = localPostgresUrl();
const run = promisify(execFile);

// CI must run it: there, a Postgres that did not start fails the file instead of skipping it.
describe.skipIf(!server && !process.env.CI)("Postgres store", () => {
  let dbUrl: string;
  beforeAll(async () => {
    dbUrl = await freshDatabase(server!);
  });
  afterAll(async () => {
    if (dbUrl) await dropDatabase(server!, dbUrl);
  });

  storeContract("postgres", { recordsHostId: true, exactLaterCalls: false }, async () => {
    const a: OpenedPg = await openPg(dbUrl);
    const b: OpenedPg = await openPg(dbUrl);
    return {
      store: new PgJobStore(a.db),
      other: new PgJobStore(b.db),
      readCache: new DbReadCache(a.db as unknown as Db),
      async seedSession() {
        const sessionId = `ses_${Math.random().toString(36).slice(2)}`;
        return { sessionId, ...(await seedDialectSession(a.db as unknown as Db, sessionId)) };
      },
      async session(id) {
        const [row] = await a.db.select().from(sessions).where(eq(sessions.id, id));
        return row!;
      },
      async pin(sessionId, hostId) {
        await a.db.update(sessions).set({ hostId }).where(eq(sessions.id, sessionId));
      },
      async retire(sessionId) {
        await a.db.update(sessions).set({ status: "deleted" }).where(eq(sessions.id, sessionId));
      },
      async auditKinds(jobId) {
        const rows = await a.db
          .select({ kind: audit.kind })
          .from(audit)
          .where(eq(audit.jobId, jobId))
          .orderBy(asc(audit.kind));
        return rows.map((r) => r.kind);
      },
      async close() {
        await Promise.all([a.close(), b.close()]);
      },
    };
  });

  it("migrates a fresh database from two processes at once, both succeeding", async () => {
    const fresh = await freshDatabase(server!);
    try {
      // Two separate Node processes, each opening (and so migrating) the same empty database.
      const script = `import("./src/db/pg/open-pg.ts")
        .then(async ({ openPg }) => { const o = await openPg(process.env.U); await o.close(); })
        .then(() => console.log("migrated"));`;
      const both = await Promise.all(
        [1, 2].map(() =>
          run("node_modules/.bin/tsx", ["--eval", script], {
            env: { ...process.env, U: fresh },
            timeout: 60_000,
          }),
        ),
      );
      expect(both.map((r) => r.stdout.trim())).toEqual(["migrated", "migrated"]);
      const o = await openPg(fresh);
      const applied = await o.pool.query("select count(*)::int as n from drizzle.__drizzle_migrations");
      // Every migration of the journal applied once, every table of the schema there.
      const journal = JSON.parse(readFileSync("migrations-pg/meta/_journal.json", "utf8")) as {
        entries: unknown[];
      };
      expect(applied.rows[0].n).toBe(journal.entries.length);
      const tables = await o.pool.query(
        "select count(*)::int as n from information_schema.tables where table_schema = 'public'",
      );
      expect(tables.rows[0].n).toBe(Object.values(pgSchema).filter((v) => is(v, PgTable)).length);
      await o.close();
    } finally {
      await dropDatabase(server!, fresh);
    }
  });

  it("applies the migrations with `toolshed db migrate`, and again as a no-op", async () => {
    const fresh = await freshDatabase(server!);
    try {
      const out: string[] = [];
      const sink = { write: (s: string) => out.push(s) } as unknown as NodeJS.WritableStream;
      expect(await runDbMigrate({ DATABASE_URL: fresh }, sink)).toBe(0);
      expect(await runDbMigrate({ DATABASE_URL: fresh }, sink)).toBe(0);
      expect(out).toEqual(["postgres migrations applied\n", "postgres migrations applied\n"]);
      expect(await runDbMigrate({ DATABASE_URL: undefined }, sink)).toBe(2);
    } finally {
      await dropDatabase(server!, fresh);
    }
  });
});
