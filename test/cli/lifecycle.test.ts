/** The composition root's start/stop bookkeeping: reverse order, once, and nothing skipped. */
import { describe, expect, it } from "vitest";
import { Lifecycle } from "../../src/cli/lifecycle.js";
import { createLogger } from "../../src/log.js";

describe("Lifecycle", () => {
  it("stops parts in reverse start order, and a second stop does nothing more", async () => {
    const life = new Lifecycle();
    const calls: string[] = [];
    for (const name of ["database", "redis", "worker", "http server"])
      life.started(name, () => void calls.push(name));
    expect(life.names).toEqual(["database", "redis", "worker", "http server"]);
    await Promise.all([life.stop(), life.stop()]);
    await life.stop();
    expect(calls).toEqual(["http server", "worker", "redis", "database"]);
    expect(life.stopped).toEqual(calls);
  });

  it("a part whose stop throws does not keep the others open", async () => {
    const life = new Lifecycle(createLogger("silent"));
    const calls: string[] = [];
    life.started("database", () => void calls.push("database"));
    life.started("redis", () => {
      throw new Error("already gone");
    });
    life.started("worker", async () => void calls.push("worker"));
    await life.stop();
    expect(calls).toEqual(["worker", "database"]);
    expect(life.stopped).toEqual(["worker", "redis", "database"]);
  });

  it("refuses a part started after shutdown began (it would never be stopped)", async () => {
    const life = new Lifecycle();
    await life.stop();
    expect(() => life.started("late", () => undefined)).toThrow(/late started while the service stops/);
  });
});
