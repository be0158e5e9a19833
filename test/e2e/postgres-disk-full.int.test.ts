/**
 * Postgres's disk fills under a running service (API and worker in one process, on a Postgres
 * cluster of this test's own whose `toolshed` database lives in a tablespace on a 24 MB tmpfs;
 * the cluster's WAL stays on its ordinary data directory, so the server itself keeps running, as
 * with a full data volume that still has room for its log). Submits are refused `503 UNAVAILABLE`
 * "storage full" (Postgres's 53100), nothing half-stored, the call that ran meanwhile is stored once
 * (its command not run twice), and once space is freed the service serves again without a restart.
 * Needs root (the tmpfs mount) and Postgres's server binaries (scripts/postgres.sh); skipped else.
 */
// suite: parallel — its Postgres cluster (a free port) and the 24 MB tmpfs it fills are its own
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillDisk } from "../support/fill-disk.js";
import { freePort } from "../support/free-port.js";
import type { Harness } from "../support/harness.js";
import { ownPostgres, startHarnessOn, stopServiceAndCluster } from "../support/own-postgres.js";
import { storageFullScenario } from "../support/storage-full.js";

function postgresBin(): string | undefined {
  try {
    const v = readdirSync("/usr/lib/postgresql").find((d) =>
      existsSync(`/usr/lib/postgresql/${d}/bin/postgres`),
    );
    return v && `/usr/lib/postgresql/${v}/bin`;
  } catch {
    return undefined;
  }
}
const bin = postgresBin();
const skip =
  process.getuid?.() !== 0
    ? "mounting the tablespace's tmpfs needs root"
    : !bin
      ? "no Postgres server binaries (run scripts/postgres.sh as root once)"
      : null;

describe.skipIf(skip !== null)(
  skip ? `Postgres's disk full: skipped, ${skip}` : "Postgres's disk full",
  () => {
    let root = "";
    let dir = "";
    let space = "";
    let filler = "";
    let port = 0;
    let h: Harness | undefined;
    const postgres = (cmd: "start" | "stop") => ownPostgres(dir, () => port)(cmd);
    /** SQL as the cluster's superuser, over its unix socket. */
    const superuser = (sql: string) =>
      execFileSync(
        "su",
        [
          "postgres",
          "-s",
          "/bin/sh",
          "-c",
          `${bin}/psql -h '${dir}' -p ${port} -U postgres -d postgres -qAtX -v ON_ERROR_STOP=1 -c "${sql}"`,
        ],
        { encoding: "utf8", timeout: 30_000 },
      );

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), "tsh-pgfull-"));
      // As root the server runs as `postgres`, which must reach its directories through this one.
      chmodSync(root, 0o755);
      dir = join(root, "pg");
      space = join(root, "space");
      filler = join(space, "filler");
      mkdirSync(space);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", space]);
      execFileSync("chown", ["postgres:", space]);
      port = await freePort();
      const url = postgres("start");
      // The database (still empty) moves to the small tablespace before the service migrates it.
      superuser(`create tablespace small location '${space}'`);
      superuser("alter database toolshed set tablespace small");
      h = await startHarnessOn(url);
    }, 120_000);

    afterAll(async () => {
      rmSync(filler, { force: true });
      try {
        await stopServiceAndCluster(h, postgres);
      } finally {
        spawnSync("umount", ["-l", space]);
        rmSync(root, { recursive: true, force: true });
      }
    }, 150_000);

    it("submits refused 503 storage full, the running call stored once, served again once freed", async () => {
      const { held } = await storageFullScenario(h!, {
        fill: () => fillDisk(filler),
        free: () => rmSync(filler),
      });
      // Its end was stored by a new claim of the same worker, which says so (not "worker lost").
      expect(held.attempts.map((a: { outcome?: string }) => a.outcome)).toEqual([
        "taken again by the same worker",
        "succeeded",
      ]);
    }, 240_000);
  },
);
