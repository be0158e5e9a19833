/** A Postgres cluster of a test's own (scripts/postgres.sh --dir), and a service on it. */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startHarness } from "./harness.js";

const SCRIPT = fileURLToPath(new URL("../../scripts/postgres.sh", import.meta.url));

/** Starts (printing its DATABASE_URL) or stops the cluster in `dir`, on `port`. */
export function ownPostgres(dir: string, port: () => number): (cmd: "start" | "stop") => string {
  return (cmd) =>
    execFileSync(
      "bash",
      [SCRIPT, cmd, "--dir", dir, ...(cmd === "start" ? ["--port", String(port())] : [])],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 60_000,
      },
    ).trim();
}

/** API and worker in one process on the Postgres at `url` (a fresh secret key, 1 s reconciler). */
export function startHarnessOn(url: string) {
  return startHarness({
    env: {
      DATABASE_URL: url,
      TOOLSHED_SECRET_KEY: randomBytes(32).toString("base64"),
      RECONCILE_INTERVAL_MS: "1000",
    },
  });
}

/** Stops the service (bounded: one that hangs on stop must not leave the cluster running), then the cluster. */
export async function stopServiceAndCluster(
  h: { stop(): Promise<unknown> } | undefined,
  postgres: (cmd: "stop") => string,
): Promise<void> {
  try {
    await Promise.race([h?.stop(), new Promise((r) => setTimeout(r, 60_000))]);
  } finally {
    try {
      postgres("stop");
    } catch {}
  }
}
