/**
 * A Postgres for the tests: scripts/postgres.sh starts (or finds) the local one and prints its
 * URL; each caller gets its own throw-away database on it. Undefined when no Postgres can be
 * had on this machine (not root and not installed), so the caller can skip and say why.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";

const SCRIPT = fileURLToPath(new URL("../../scripts/postgres.sh", import.meta.url));
let url: string | undefined | null = null;

/** The server's URL (started when needed), or undefined when it cannot be started here. */
export function localPostgresUrl(): string | undefined {
  if (url !== null) return url;
  try {
    url = execFileSync("bash", [SCRIPT], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch (err) {
    process.stderr.write(`postgres unavailable: ${(err as { stderr?: string }).stderr ?? err}\n`);
    url = undefined;
  }
  return url;
}

/** Creates an empty database on the server of `serverUrl`; returns its URL. */
export async function freshDatabase(serverUrl: string): Promise<string> {
  const name = `t_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Drops a database made by freshDatabase (closing its connections first). A backend that is
 * just starting or ending (an autovacuum worker, a pool's last connection) can make the forced
 * drop fail once ("being accessed by other users", or a process it may not signal): it is tried
 * again, a bounded number of times.
 */
export async function dropDatabase(serverUrl: string, dbUrl: string): Promise<void> {
  const name = new URL(dbUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`drop database if exists ${name} with (force)`);
        return;
      } catch (err) {
        const code = (err as { code?: string }).code;
        // 55006 object_in_use, 42501 insufficient_privilege (another role's backend).
        if (attempt >= 10 || (code !== "55006" && code !== "42501")) throw err;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
}

/** The database a test service runs on: its settings, and how to remove it afterwards. */
export interface TestDatabase {
  dialect: "sqlite" | "pg";
  /** Settings for every process of the service (none on SQLite: the file lives in DATA_DIR). */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * `TOOLSHED_TEST_DB=pg` (the `integration-pg` vitest project sets it): a fresh Postgres database
 * for one test service, named to every process of it by DATABASE_URL, with the secret key in
 * the configuration (as hosts that share a database but not a disk have it). Otherwise SQLite
 * in the service's DATA_DIR, as before. Throws when Postgres is asked for and cannot be had.
 */
export async function testDatabase(): Promise<TestDatabase> {
  const wanted = process.env.TOOLSHED_TEST_DB ?? "";
  if (wanted === "" || wanted === "sqlite") return { dialect: "sqlite", env: {}, drop: async () => {} };
  if (wanted !== "pg") throw new Error(`TOOLSHED_TEST_DB=${wanted}: use pg, sqlite or leave it unset`);
  const server = localPostgresUrl();
  if (!server) {
    throw new Error("TOOLSHED_TEST_DB=pg, but scripts/postgres.sh could not start Postgres here (see above)");
  }
  const url = await freshDatabase(server);
  return {
    dialect: "pg",
    env: { DATABASE_URL: url, TOOLSHED_SECRET_KEY: randomBytes(32).toString("base64") },
    drop: () => dropDatabase(server, url),
  };
}
