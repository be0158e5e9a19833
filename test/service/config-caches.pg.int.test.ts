/**
 * The per-call configuration caches on Postgres (config-caches-contract.ts): two pools on one
 * fresh database per test. Postgres comes from scripts/postgres.sh; outside CI the file skips
 * when it cannot be started on this machine.
 */
import { describe } from "vitest";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../support/postgres.js";
import { pgTwice } from "../support/two-handles.js";
import { configCachesContract } from "./config-caches-contract.js";

const server = localPostgresUrl();

// CI must run it: there, a Postgres that did not start fails the file instead of skipping it.
describe.skipIf(!server && !process.env.CI)("per-call configuration caches on Postgres", () => {
  configCachesContract("postgres", async () => {
    const url = await freshDatabase(server!);
    const both = await pgTwice(url);
    return {
      ...both,
      async close() {
        await both.close();
        await dropDatabase(server!, url);
      },
    };
  });
});
