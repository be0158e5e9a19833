/**
 * Session placement on Postgres: two pools on one database (two workers on two hosts), so the
 * racing placements really interleave. Postgres comes from scripts/postgres.sh; outside CI the
 * file skips when it cannot be started on this machine.
 */
import { afterAll, beforeAll, describe } from "vitest";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../support/postgres.js";
import { pgTwice } from "../support/two-handles.js";
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

  placementContract("postgres", () => pgTwice(dbUrl));
});
