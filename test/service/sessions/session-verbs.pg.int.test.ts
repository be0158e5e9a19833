/**
 * The session verbs on Postgres (the contract in session-verbs-contract.ts). Postgres comes from
 * scripts/postgres.sh; outside CI the file skips when it cannot be started on this machine.
 */
import { afterAll, beforeAll, describe } from "vitest";
import type { Db } from "../../../src/db/db.js";
import { openPg } from "../../../src/db/pg/open-pg.js";
import { PgJobStore } from "../../../src/db/pg/pg-job-store.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../../support/postgres.js";
import { sessionVerbsContract } from "./session-verbs-contract.js";

const server = localPostgresUrl();

// CI must run it: there, a Postgres that did not start fails the file instead of skipping it.
describe.skipIf(!server && !process.env.CI)("session verbs on Postgres", () => {
  let dbUrl: string;
  beforeAll(async () => {
    dbUrl = await freshDatabase(server!);
  });
  afterAll(async () => {
    if (dbUrl) await dropDatabase(server!, dbUrl);
  });

  sessionVerbsContract("postgres", async () => {
    const opened = await openPg(dbUrl);
    return {
      db: opened.db as unknown as Db,
      store: new PgJobStore(opened.db),
      close: () => opened.close(),
    };
  });
});
