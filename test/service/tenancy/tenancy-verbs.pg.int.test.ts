/**
 * The tenancy and webhook verbs on Postgres (the contract in tenancy-verbs-contract.ts), each
 * test on a fresh database (tenants are listed across the whole table). Postgres comes from
 * scripts/postgres.sh; outside CI the file skips when it cannot be started on this machine.
 */
import { describe } from "vitest";
import type { Db } from "../../../src/db/db.js";
import { openPg } from "../../../src/db/pg/open-pg.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../../support/postgres.js";
import { tenancyVerbsContract } from "./tenancy-verbs-contract.js";

const server = localPostgresUrl();

// CI must run it: there, a Postgres that did not start fails the file instead of skipping it.
describe.skipIf(!server && !process.env.CI)("tenancy verbs on Postgres", () => {
  tenancyVerbsContract("postgres", async () => {
    const url = await freshDatabase(server!);
    const opened = await openPg(url);
    return {
      db: opened.db as unknown as Db,
      async close() {
        await opened.close();
        await dropDatabase(server!, url);
      },
    };
  });
});
