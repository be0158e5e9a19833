/** A full disk, told apart from other failures: what requests answer and what a worker waits for. */
import { describe, expect, it } from "vitest";
import { asUnavailable, isRedisFull, isStorageFull, waitsForDatabase } from "../src/errors.js";

const coded = (code: string, cause?: unknown) => Object.assign(new Error(code, { cause }), { code });

describe("a full disk", () => {
  it.each([
    ["SQLite's SQLITE_FULL", coded("SQLITE_FULL"), true, true],
    [
      "Postgres's disk_full under Drizzle's error",
      new Error("query failed", { cause: coded("53100") }),
      true,
      true,
    ],
    ["the kernel's ENOSPC", coded("ENOSPC"), true, false],
    [
      "a sandbox that did not start for ENOSPC",
      new Error("did not start", { cause: coded("ENOSPC") }),
      true,
      false,
    ],
    ["an unrelated error", coded("SQLITE_CONSTRAINT"), false, false],
  ])("%s: storage full %s, a worker waits %s", (_name, err, full, waits) => {
    expect(isStorageFull(err)).toBe(full);
    expect(waitsForDatabase(err)).toBe(waits);
  });

  it("is answered 503 UNAVAILABLE saying the storage is full, with a Retry-After", () => {
    const answer = asUnavailable(coded("SQLITE_FULL"));
    expect(answer?.code).toBe("UNAVAILABLE");
    expect(answer?.message).toBe("the service's storage is full: nothing was stored; retry later");
    expect(answer?.retryAfterS).toBeGreaterThan(0);
  });
});

describe("a full Redis (maxmemory reached, noeviction)", () => {
  const oom = () => new Error("OOM command not allowed when used memory > 'maxmemory'.");
  it.each([
    ["a refused write", oom(), true],
    [
      "a refused script",
      new Error("OOM command not allowed when used memory > 'maxmemory'. script: 33, on @user_script:3."),
      true,
    ],
    [
      "a MULTI whose write was refused (ioredis's EXECABORT)",
      Object.assign(new Error("EXECABORT Transaction discarded because of previous errors."), {
        previousErrors: [oom()],
      }),
      true,
    ],
    ["under another error", new Error("upload failed", { cause: oom() }), true],
    ["a Redis outage", coded("ECONNREFUSED"), false],
    [
      "another EXECABORT",
      Object.assign(new Error("EXECABORT"), { previousErrors: [new Error("WRONGTYPE")] }),
      false,
    ],
  ])("%s: %s", (_name, err, full) => {
    expect(isRedisFull(err)).toBe(full);
  });

  it("is answered 503 UNAVAILABLE saying the queue is full, with a Retry-After", () => {
    const answer = asUnavailable(oom());
    expect([answer?.code, answer?.message]).toEqual([
      "UNAVAILABLE",
      "the queue (Redis) is full: nothing was stored; retry later",
    ]);
    expect(answer?.retryAfterS).toBeGreaterThan(0);
  });
});
