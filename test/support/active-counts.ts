/**
 * Counts the tenant active-call counts a service runs on SQLite (the prepared statement every
 * store transaction that takes a slot uses); on Postgres the store counts in SQL and `counted`
 * is undefined. `restore()` puts the statement back.
 */
import { type Db, dialectOf } from "../../src/db/db.js";
import { preparedFor } from "../../src/db/prepared.js";

export function countActiveCounts(db: Db): { counted(): number | undefined; restore(): void } {
  if (dialectOf(db) !== "sqlite") return { counted: () => undefined, restore: () => {} };
  const count = preparedFor(db).activeCount;
  const get = count.get.bind(count);
  let n = 0;
  count.get = ((...a: Parameters<typeof get>) => {
    n++;
    return get(...a);
  }) as typeof count.get;
  return {
    counted: () => n,
    restore: () => {
      count.get = get;
    },
  };
}
