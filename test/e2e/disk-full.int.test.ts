/**
 * The data disk fills (DATA_DIR on a small tmpfs of this test's own: the SQLite database and the
 * workspaces). Submits once it is full are refused with a clear JSON error (not a 500, not a
 * crash), no stored row is corrupted (`PRAGMA integrity_check`), and once space is freed the
 * service serves again without a restart. A workspace upload that fills the disk is refused too.
 */
// suite: parallel — the disk it fills is a 48 MB tmpfs of its own, at a random path; its Redis is its own
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fillDisk } from "../support/fill-disk.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { type PrivateRedis, startPrivateRedis } from "../support/private-redis.js";
import { storageFullScenario } from "../support/storage-full.js";

// Short: the sandbox provider puts unix sockets under DATA_DIR.
const dir = `/tmp/tsd-${randomBytes(3).toString("hex")}`;
const filler = join(dir, "filler");
let h: Harness | undefined;
// The 60 MB upload below goes through Redis (the API stages a body there for the worker): on the
// shared Redis (its AOF on) it held up another file's dependency probe past its 1 s timeout (a
// submit elsewhere answered 503 "the queue (Redis) is unreachable").
let redis: PrivateRedis | undefined;

/** `p`, or a failure naming `what` after `ms` (a hang fails the test that met it). */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

beforeAll(async () => {
  mkdirSync(dir);
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=48m", "tmpfs", dir]);
  redis = await startPrivateRedis();
  h = await startHarness({ env: { DATA_DIR: dir, SANDBOX_DISK_QUOTA: "off", REDIS_URL: redis.url } });
}, 60_000);

afterAll(async () => {
  rmSync(filler, { force: true });
  await h?.stop().catch(() => undefined);
  await redis?.kill();
  spawnSync("umount", ["-l", dir]);
  rmSync(dir, { recursive: true, force: true });
});

it("a full data disk: submits refused with a clear error, rows intact, served again once freed", async () => {
  await storageFullScenario(h!, {
    fill: () => fillDisk(filler),
    free: () => rmSync(filler),
    // SQLite undoes a failed transaction whole: the file is intact while the disk is full.
    whileFull: () => {
      const db = new Database(join(dir, "toolshed.db"), { readonly: true });
      expect(db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
      db.close();
    },
  });
}, 180_000);

it("an upload that fills the disk is refused and leaves no part of the file", async () => {
  const { call, url } = h!;
  const t = await seedBashTenant(call, "upload");
  const key = t.agentKey;
  const rules = { allow: ["Bash", "Read", "Write(/workspace/**)"], deny: [], ask: [] };
  expect(
    (await call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules })).status,
  ).toBe(200);
  const sid = (await call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
  // Bigger than the whole disk.
  const res = await within(
    60_000,
    "upload",
    fetch(`${url}/v1/sessions/${sid}/files?path=/workspace/big`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" },
      body: Buffer.alloc(60 << 20, 1),
    }),
  );
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on JSON bodies freely
  const body: any = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(413);
  expect(body.error.message).toContain("no space left for /workspace/big");
  const ls = await call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key,
    body: { tool: "Bash", input: { command: "ls /workspace" } },
  });
  expect(ls.body.job?.status, JSON.stringify(ls.body)).toBe("succeeded");
  expect(ls.body.job.result.content[0].text).toBe("");
}, 120_000);
