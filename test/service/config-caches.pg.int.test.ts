/**
 * The per-call configuration caches on Postgres (config-caches-contract.ts): two pools on one
 * fresh database. Postgres comes from scripts/postgres.sh; outside CI the file skips when it
 * cannot be started on this machine.
 */
import { describe } from "vitest";
import type { Db } from "../../src/db/db.js";
import { openPg } from "../../src/db/pg/open-pg.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../support/postgres.js";
import { configCachesContract } from "./config-caches-contract.js";

const server = localPostgresUrl();

// CI must run it: there, a Postgres that did not start fails the file instead of skipping it.
describe.skipIf(!server && !process.env.CI)("per-call configuration caches on Postgres", () => {
  configCachesContract("postgres", async () => {
    const url = await freshDatabase(server!);
    const here = await openPg(url);
    const elsewhere = await openPg(url);
    return {
      here: here.db as unknown as Db,
      elsewhere: elsewhere.db as unknown as Db,
      async close() {
        await elsewhere.close();
        await here.close();
        await dropDatabase(server!, url);
      },
    };
  });
});
