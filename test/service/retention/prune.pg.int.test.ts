/**
 * Retention on Postgres (prune-contract.ts): two pools on one database stand for two hosts.
 * Postgres comes from scripts/postgres.sh; outside CI the file skips when it cannot be started.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe } from "vitest";
import type { Db } from "../../../src/db/db.js";
import { dropDatabase, freshDatabase, localPostgresUrl } from "../../support/postgres.js";
import { pgTwice } from "../../support/two-handles.js";
import { pruneContract } from "./prune-contract.js";

const server = localPostgresUrl();

describe.skipIf(!server && !process.env.CI)("retention on Postgres", () => {
  let dbUrl: string;
  beforeAll(async () => {
    dbUrl = await freshDatabase(server!);
  });
  afterAll(async () => {
    if (dbUrl) await dropDatabase(server!, dbUrl);
  });

  pruneContract("postgres", async () => {
    const h = await pgTwice(dbUrl);
    const exec = (db: Db, text: string) =>
      (db as unknown as { execute(q: unknown): Promise<unknown> }).execute(sql.raw(text));
    return {
      ...h,
      async failDeleteOf(table, id) {
        const name = `fail_${table}`;
        await exec(
          h.a,
          `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger AS $$ BEGIN
             IF old.id = '${id}' THEN RAISE EXCEPTION 'disk full (test)'; END IF; RETURN old; END $$ LANGUAGE plpgsql;
           CREATE TRIGGER ${name} BEFORE DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}();`,
        );
        return async () => {
          await exec(h.a, `DROP TRIGGER ${name} ON ${table}; DROP FUNCTION ${name}();`);
        };
      },
    };
  });
});
