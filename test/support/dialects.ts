/**
 * Runs a suite against the Db handle on both dialects: SQLite (a fresh migrated file per open)
 * and Postgres (one throw-away database per suite, two pools per open: two processes'
 * connections). Postgres comes from scripts/postgres.sh; outside CI its half skips, saying why on
 * stderr, when none can be started on this machine; under CI it fails instead.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe } from "vitest";
import { type Db, tablesOf } from "../../src/db/db.js";
import { openPg } from "../../src/db/pg/open-pg.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "./postgres.js";
import { sessionRow } from "./rows.js";
import { openTestDb } from "./test-db.js";

export interface DialectDb {
  db: Db;
  /** Another handle on the same database (on SQLite the same one: a single process's view). */
  other: Db;
  close(): Promise<void>;
}

/**
 * `suite` runs once per dialect; each of its tests gets freshly opened handles (`current()`),
 * closed after it.
 */
export function describeDialects(
  name: string,
  suite: (current: () => DialectDb) => void,
  /** Postgres only: SQL that empties what a test looks at (the suite's tests share the database). */
  opts: { resetSql?: string } = {},
): void {
  describe(`${name} on SQLite`, () => {
    withHandles(suite, async () => {
      const dir = mkdtempSync(join(tmpdir(), "tst-dialect-"));
      const { db, close } = openTestDb(join(dir, "t.db"));
      return {
        db,
        other: db,
        async close() {
          close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    });
  });

  const server = localPostgresUrl();
  describe.skipIf(!server && !process.env.CI)(`${name} on Postgres`, () => {
    let dbUrl: string;
    beforeAll(async () => {
      dbUrl = await freshDatabase(server!);
    });
    afterAll(async () => {
      if (dbUrl) await dropDatabase(server!, dbUrl);
    });
    withHandles(suite, async () => {
      const [x, y] = await Promise.all([openPg(dbUrl, { max: 4 }), openPg(dbUrl, { max: 4 })]);
      if (opts.resetSql) await x.pool.query(opts.resetSql);
      return {
        db: x.db as unknown as Db,
        other: y.db as unknown as Db,
        close: async () => void (await Promise.all([x.close(), y.close()])),
      };
    });
  });
}

function withHandles(suite: (current: () => DialectDb) => void, open: () => Promise<DialectDb>): void {
  let opened: DialectDb | undefined;
  beforeEach(async () => {
    opened = await open();
  });
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });
  suite(() => {
    if (!opened) throw new Error("the handles are opened for each test only");
    return opened;
  });
}

/** A tenant (`ten_<sessionId>`, once) and an active session `sessionId` of it, through the handle. */
export async function seedDialectSession(db: Db, sessionId: string): Promise<{ tenantId: string }> {
  const { tenants, sessions } = tablesOf(db);
  const tenantId = `ten_${sessionId}`;
  const createdAt = new Date().toISOString();
  await db.insert(tenants).values({ id: tenantId, name: tenantId, createdAt }).onConflictDoNothing();
  await db.insert(sessions).values(sessionRow({ id: sessionId, tenantId }));
  return { tenantId };
}
