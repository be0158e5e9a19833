/**
 * The skill store and host cache contract on Postgres (bytea archives, the migration of
 * skill_archives). Skips outside CI when no Postgres can be started here.
 */
import { afterAll, beforeAll, describe } from "vitest";
import type { Db } from "../../../src/db/db.js";
import { openPg } from "../../../src/db/pg/open-pg.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../../support/postgres.js";
import { skillCacheContract } from "./skill-cache-contract.js";

const server = localPostgresUrl();

describe.skipIf(!server && !process.env.CI)("Postgres", () => {
  let dbUrl: string;
  beforeAll(async () => {
    dbUrl = await freshDatabase(server!);
  });
  afterAll(async () => {
    if (dbUrl) await dropDatabase(server!, dbUrl);
  });

  skillCacheContract("postgres", async () => {
    const opened = await openPg(dbUrl);
    // The Postgres handle under the SQLite type, as openDatabase gives it to the service.
    return { db: opened.db as unknown as Db, close: opened.close };
  });
});
