/**
 * The test harness on Postgres (TOOLSHED_TEST_DB=pg, what the `integration-pg` project sets):
 * every process a harness starts is configured with one fresh database and one secret key, the
 * database is real and migrated through the Db handle, and it is dropped when the harness stops.
 * The harness's `launch` is a recorder here: this checks the harness's plumbing only, the
 * `integration-pg` project runs the real service on it.
 */
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunningService } from "../../src/cli/compose.js";
import type { Config } from "../../src/config.js";
import { tablesOf } from "../../src/db/db.js";
import { openDatabase } from "../../src/db/open-database.js";
import { startHarness } from "../support/harness.js";
import { localPostgresUrl } from "../support/postgres.js";

const started: { config: Config; mode: string }[] = [];
/** Records what the harness starts instead of starting it (the plumbing, not the service). */
const launch = async (config: Config, mode: string): Promise<RunningService> => {
  started.push({ config, mode });
  return {
    url: "http://127.0.0.1:9",
    deps: { sandboxes: { reapOrphans: async () => 0 } },
    parts: { started: [], stopped: [] },
    stop: async () => {},
  } as unknown as RunningService;
};

afterEach(() => {
  vi.unstubAllEnvs();
  started.length = 0;
});

const server = localPostgresUrl();

async function databaseExists(url: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    const r = await admin.query("select 1 from pg_database where datname = $1", [
      new URL(url).pathname.slice(1),
    ]);
    return r.rowCount === 1;
  } finally {
    await admin.end();
  }
}

// CI must run it: there, a Postgres that did not start fails the file instead of skipping it.
describe.skipIf(!server && !process.env.CI)("TOOLSHED_TEST_DB=pg", () => {
  it("gives every process of a harness one fresh database and key, and drops the database at stop", async () => {
    vi.stubEnv("TOOLSHED_TEST_DB", "pg");
    const h = await startHarness({ mode: "api", launch });
    await h.start("worker");
    const [api, worker] = started;
    const url = api!.config.DATABASE_URL!;
    expect(url).toMatch(/^postgres:\/\/toolshed:[^@]+@127\.0\.0\.1:\d+\/t_\w+$/);
    expect(api!.config.TOOLSHED_SECRET_KEY).toHaveLength(32);
    // The in-process worker and any child process (configured from h.env) use the same ones.
    expect(worker!.config.DATABASE_URL).toBe(url);
    expect(worker!.config.TOOLSHED_SECRET_KEY).toEqual(api!.config.TOOLSHED_SECRET_KEY);
    expect(h.env.DATABASE_URL).toBe(url);
    expect(h.env.TOOLSHED_SECRET_KEY).toBe(api!.config.TOOLSHED_SECRET_KEY!.toString("base64"));

    // A real database: opening it migrates it, and the Db handle reads it on Postgres.
    const opened = await openDatabase({ DATABASE_URL: url, DATA_DIR: h.config.DATA_DIR });
    expect(opened.dialect).toBe("pg");
    expect(await opened.db.select().from(tablesOf(opened.db).tenants)).toEqual([]);
    await opened.close();

    // Another harness gets another database.
    const other = await startHarness({ launch });
    expect(started[2]!.config.DATABASE_URL).not.toBe(url);
    await other.stop();

    await h.stop();
    expect(await databaseExists(url)).toBe(false);
    expect(await databaseExists(started[2]!.config.DATABASE_URL!)).toBe(false);
  });
});

describe("without TOOLSHED_TEST_DB", () => {
  it("keeps the harness on SQLite in its DATA_DIR", async () => {
    vi.stubEnv("TOOLSHED_TEST_DB", undefined);
    const h = await startHarness({ mode: "api", launch });
    expect(started[0]!.config.DATABASE_URL).toBeUndefined();
    expect(h.env.DATABASE_URL).toBeUndefined();
    await h.stop();
  });

  it("refuses a value it does not know, saying which ones it takes", async () => {
    vi.stubEnv("TOOLSHED_TEST_DB", "mysql");
    await expect(startHarness({ launch })).rejects.toThrow(
      "TOOLSHED_TEST_DB=mysql: use pg, sqlite or leave it unset",
    );
    expect(started).toEqual([]);
  });
});
