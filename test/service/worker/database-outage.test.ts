import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.js";
import { Readiness } from "../../../src/service/readiness.js";
import { throughDatabaseOutage } from "../../../src/service/worker/database-outage.js";

/** A database that is down until told otherwise, and the error a query meets meanwhile. */
function fakeDatabase() {
  const db = { down: true, looks: 0 };
  const readiness = new Readiness(
    {
      database: () => {
        db.looks++;
        if (db.down) throw new Error("connect ECONNREFUSED");
      },
    },
    { timeoutMs: 100, cacheMs: 0 },
  );
  const deps = { readiness, logger: createLogger("silent") };
  return { db, deps };
}
const lost = () =>
  Object.assign(new Error("the database is unreachable"), { name: "DatabaseUnreachableError" });
const fast = (signal = new AbortController().signal) => ({ signal, lookEveryMs: 10, maxWaitMs: 2000 });

describe("throughDatabaseOutage", () => {
  it("does the step again once the database answers, and returns what it returns then", async () => {
    const { db, deps } = fakeDatabase();
    let calls = 0;
    const result = await throughDatabaseOutage(
      deps,
      async () => {
        calls++;
        if (calls === 1) {
          setTimeout(() => (db.down = false), 50);
          throw lost();
        }
        return "stored";
      },
      fast(),
    );
    expect(result).toBe("stored");
    expect(calls).toBe(2);
    expect(db.looks).toBeGreaterThan(1);
  });

  it("passes any other error on at once, without looking at the database", async () => {
    const { db, deps } = fakeDatabase();
    let calls = 0;
    const step = async () => {
      calls++;
      throw new Error("the tool failed");
    };
    await expect(throughDatabaseOutage(deps, step, fast())).rejects.toThrow("the tool failed");
    expect(calls).toBe(1);
    expect(db.looks).toBe(0);
  });

  it("gives up with the outage's error when the database stays away past the wait", async () => {
    const { deps } = fakeDatabase();
    let calls = 0;
    const step = async () => {
      calls++;
      throw lost();
    };
    await expect(throughDatabaseOutage(deps, step, { ...fast(), maxWaitMs: 50 })).rejects.toThrow(
      "the database is unreachable",
    );
    expect(calls).toBe(1);
  });

  it("gives up at once when the worker closes", async () => {
    const { deps } = fakeDatabase();
    const closing = new AbortController();
    const step = async () => {
      setTimeout(() => closing.abort(), 20);
      throw lost();
    };
    await expect(throughDatabaseOutage(deps, step, fast(closing.signal))).rejects.toThrow(
      "the database is unreachable",
    );
  });
});
