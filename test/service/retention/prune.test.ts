/** Retention on SQLite (prune-contract.ts): two connections to one file stand for two hosts. */
import { sql } from "drizzle-orm";
import { sqliteTwice } from "../../support/two-handles.js";
import { pruneContract } from "./prune-contract.js";

pruneContract("sqlite", async () => {
  const h = sqliteTwice("prune-");
  return {
    ...h,
    async failDeleteOf(table, id) {
      const name = `fail_${table}`;
      h.a.run(
        sql.raw(
          `CREATE TRIGGER ${name} BEFORE DELETE ON ${table} WHEN old.id = '${id}' BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END`,
        ),
      );
      return async () => {
        h.a.run(sql.raw(`DROP TRIGGER ${name}`));
      };
    },
  };
});
