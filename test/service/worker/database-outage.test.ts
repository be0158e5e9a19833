import { Writable } from "node:stream";
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

it("logs a long wait when it starts, then every logEveryMs, and once when it ends", async () => {
  const lines: { level: number; msg: string; tries?: number }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const readiness = new Readiness({ database: () => undefined }, { timeoutMs: 100, cacheMs: 0 });
  const deps = { readiness, logger: createLogger("info", sink) };
  // A full disk: the database answers its ping, the step fails 30 times, 10 ms apart (~300 ms).
  let calls = 0;
  const full = () => Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
  const step = async () => {
    if (++calls <= 30) throw full();
    return "stored";
  };
  const signal = new AbortController().signal;
  const result = await throughDatabaseOutage(deps, step, { signal, lookEveryMs: 10, logEveryMs: 60_000 });
  expect(result).toBe("stored");
  expect(calls).toBe(31);
  expect(lines.map((l) => [l.msg, l.tries])).toEqual([
    [
      "storage full: the step waits for free space (free disk space under DATA_DIR, or the database's disk)",
      1,
    ],
    ["storage free again: the step went through", 31],
  ]);
});
