/**
 * The webhook-delivery reconcile on Postgres (reconcile-deliveries-contract.ts): two pools on one
 * database stand for two hosts. Postgres comes from scripts/postgres.sh; outside CI the file
 * skips when it cannot be started.
 */
import { afterAll, beforeAll, describe } from "vitest";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../../support/postgres.js";
import { pgTwice } from "../../support/two-handles.js";
import { reconcileContract } from "./reconcile-deliveries-contract.js";

const server = localPostgresUrl();

describe.skipIf(!server && !process.env.CI)("webhook delivery reconcile on Postgres", () => {
  let dbUrl: string;
  beforeAll(async () => {
    dbUrl = await freshDatabase(server!);
  });
  afterAll(async () => {
    if (dbUrl) await dropDatabase(server!, dbUrl);
  });

  reconcileContract("postgres", () => pgTwice(dbUrl));
});
