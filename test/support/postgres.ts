/**
 * A Postgres for the tests: scripts/postgres.sh starts (or finds) the local one and prints its
 * URL; each caller gets its own throw-away database on it. Undefined when no Postgres can be
 * had on this machine (not root and not installed), so the caller can skip and say why.
 */
import { execFileSync } from "node:child_process";
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

/** Drops a database made by freshDatabase (closing its connections first). */
export async function dropDatabase(serverUrl: string, dbUrl: string): Promise<void> {
  const name = new URL(dbUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
}
