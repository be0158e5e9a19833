/**
 * Session placement on Postgres: two pools on one database (two workers on two hosts), so the
 * racing placements really interleave. Postgres comes from scripts/postgres.sh; outside CI the
 * file skips when it cannot be started on this machine.
 */
import { afterAll, beforeAll, describe } from "vitest";
import type { Db } from "../../src/db/db.js";
import { openPg } from "../../src/db/pg/open-pg.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../support/postgres.js";
import { placementContract } from "./session-hosts-contract.js";

const server = localPostgresUrl();

// CI must run it: there, a Postgres that did not start fails the file instead of skipping it.
describe.skipIf(!server && !process.env.CI)("session placement on Postgres", () => {
  let dbUrl: string;
  beforeAll(async () => {
    dbUrl = await freshDatabase(server!);
  });
  afterAll(async () => {
    if (dbUrl) await dropDatabase(server!, dbUrl);
  });

  placementContract("postgres", async () => {
    const a = await openPg(dbUrl);
    const b = await openPg(dbUrl);
    return {
      a: a.db as unknown as Db,
      b: b.db as unknown as Db,
      async close() {
        await Promise.all([a.close(), b.close()]);
      },
    };
  });
});
