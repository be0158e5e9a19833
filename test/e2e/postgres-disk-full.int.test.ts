/**
 * Postgres's disk fills under a running service (API and worker in one process, on a Postgres
 * cluster of this test's own whose `toolshed` database lives in a tablespace on a 24 MB tmpfs;
 * the cluster's WAL stays on its ordinary data directory, so the server itself keeps running, as
 * with a full data volume that still has room for its log). Submits are refused `503 UNAVAILABLE`
 * "storage full" (Postgres's 53100), nothing half-stored, the call that ran meanwhile is stored once
 * (its command not run twice), and once space is freed the service serves again without a restart.
 * Needs root (the tmpfs mount) and Postgres's server binaries (scripts/postgres.sh); skipped else.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionPaths } from "../../src/sandbox/session-paths.js";
import { freePort } from "../support/free-port.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { waitForJob, waitForJobs } from "../support/wait-for-job.js";

const SCRIPT = fileURLToPath(new URL("../../scripts/postgres.sh", import.meta.url));

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
    const postgres = (cmd: "start" | "stop") =>
      execFileSync(
        "bash",
        [SCRIPT, cmd, "--dir", dir, ...(cmd === "start" ? ["--port", String(port)] : [])],
        {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
          timeout: 60_000,
        },
      ).trim();
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
      h = await startHarness({
        env: {
          DATABASE_URL: url,
          TOOLSHED_SECRET_KEY: randomBytes(32).toString("base64"),
          RECONCILE_INTERVAL_MS: "1000",
        },
      });
    }, 120_000);

    afterAll(async () => {
      rmSync(filler, { force: true });
      try {
        await Promise.race([h?.stop(), new Promise((r) => setTimeout(r, 60_000))]);
      } finally {
        try {
          postgres("stop");
        } catch {}
        spawnSync("umount", ["-l", space]);
        rmSync(root, { recursive: true, force: true });
      }
    }, 150_000);

    /** Fills the tablespace's tmpfs with `filler` (written as root: no reserved blocks on tmpfs). */
    function fill(): void {
      const fd = openSync(filler, "a");
      try {
        for (const size of [1 << 20, 4096]) {
          try {
            for (;;) writeSync(fd, Buffer.alloc(size));
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
          }
        }
      } finally {
        closeSync(fd);
      }
    }

    it("submits refused 503 storage full, the running call stored once, served again once freed", async () => {
      const { call, config } = h!;
      const t = await seedBashTenant(call);
      const key = t.agentKey;
      const sid = (await call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
      const submit = (command: string, wait = "?wait=30") =>
        call("POST", `/v1/sessions/${sid}/calls${wait}`, { key, body: { tool: "Bash", input: { command } } });
      const first = await submit("echo before > /workspace/f");
      expect(first.body.job?.status, JSON.stringify(first.body)).toBe("succeeded");

      // A call running when the disk fills, held until the test lets it go; its 100 kB result is
      // stored once the disk is full.
      const workspace = sessionPaths(join(config.DATA_DIR, "sb"), config.SERVICE_ID, sid).workspaceDir;
      writeFileSync(
        join(workspace, "hold.sh"),
        "while [ ! -e /workspace/go ]; do sleep 0.1; done\necho ran >> /workspace/f\nhead -c 100000 /dev/zero | tr '\\0' x\n",
      );
      const held = await submit("sh /workspace/hold.sh", "");
      expect(held.status, JSON.stringify(held.body)).toBe(202);
      await waitForJob(call, key, held.body.job.id, {
        until: ["running"],
        timeoutMs: 30_000,
        intervalMs: 50,
      });

      fill();
      // Large inputs until a relation cannot grow: refused, never a 500.
      const pad = "#".repeat(60_000);
      let refused: Awaited<ReturnType<typeof submit>> | undefined;
      const accepted: string[] = [];
      for (let i = 0; i < 60 && !refused; i++) {
        const r = await submit(`echo full-${i} ${pad} > /dev/null; echo ${i} >> /workspace/accepted`, "");
        if (r.status !== 202) refused = r;
        else accepted.push(r.body.job.id);
      }
      expect(refused?.status, JSON.stringify(refused?.body)).toBe(503);
      expect(refused!.body.error).toEqual({
        code: "UNAVAILABLE",
        message: "the service's storage is full: nothing was stored; retry later",
      });
      expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);

      // The held call ends while the disk is full: its end cannot be stored yet.
      execFileSync("touch", [join(workspace, "go")]);
      await new Promise((r) => setTimeout(r, 3000));

      // Space freed: served again without a restart; the held call stored once, run once.
      rmSync(filler);
      const done = await waitForJob(call, key, held.body.job.id, { timeoutMs: 60_000 });
      expect(done.status, JSON.stringify(done).slice(0, 2000)).toBe("succeeded");
      expect(done.result.content[0].text).toMatch(/^x{1000}/);
      const ends = await waitForJobs(call, key, accepted, undefined, { timeoutMs: 60_000 });
      for (const j of ends) expect(j.status, JSON.stringify(j).slice(0, 1000)).toBe("succeeded");
      const again = await submit(
        "cat /workspace/f; sort -n /workspace/accepted 2>/dev/null | uniq -d | wc -l",
      );
      expect(again.body.job?.status, JSON.stringify(again.body)).toBe("succeeded");
      // `ran` once; no accepted call ran twice.
      expect(again.body.job.result.content[0].text).toBe("before\nran\n0\n");
      // Its end was stored by a new claim of the same worker, which says so (not "worker lost").
      expect(done.attempts.map((a: { outcome?: string }) => a.outcome).at(-2)).toBe(
        "taken again by the same worker",
      );
      console.log(
        `postgres disk full: ${accepted.length} accepted before the refusal; attempts ${JSON.stringify(done.attempts)}`,
      );
    }, 240_000);
  },
);
