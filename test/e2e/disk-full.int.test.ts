/**
 * The data disk fills (DATA_DIR on a small tmpfs of this test's own: the SQLite database and the
 * workspaces). Submits once it is full are refused with a clear JSON error (not a 500, not a
 * crash), no stored row is corrupted (`PRAGMA integrity_check`), and once space is freed the
 * service serves again without a restart. A workspace upload that fills the disk is refused too.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sessionPaths } from "../../src/sandbox/session-paths.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { waitForJob, waitForJobs } from "../support/wait-for-job.js";

// Short: the sandbox provider puts unix sockets under DATA_DIR.
const dir = `/tmp/tsd-${randomBytes(3).toString("hex")}`;
const filler = join(dir, "filler");
let h: Harness | undefined;

/** Writes `filler` until the disk is full (ENOSPC); the bytes written. */
function fill(): number {
  const fd = openSync(filler, "a");
  const chunk = Buffer.alloc(1 << 20);
  let n = 0;
  try {
    for (;;) n += writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    closeSync(fd);
  }
  // The last, partial megabyte too.
  const fd2 = openSync(filler, "a");
  try {
    for (;;) n += writeSync(fd2, Buffer.alloc(4096));
  } catch {
  } finally {
    closeSync(fd2);
  }
  return n;
}

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
  h = await startHarness({ env: { DATA_DIR: dir, SANDBOX_DISK_QUOTA: "off" } });
}, 60_000);

afterAll(async () => {
  rmSync(filler, { force: true });
  await h?.stop().catch(() => undefined);
  spawnSync("umount", ["-l", dir]);
  rmSync(dir, { recursive: true, force: true });
});

it("a full data disk: submits refused with a clear error, rows intact, served again once freed", async () => {
  const { call, config } = h!;
  const t = await seedBashTenant(call);
  const key = t.agentKey;
  const rules = { allow: ["Bash", "Read", "Write(/workspace/**)"], deny: [], ask: [] };
  const put = await call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  expect(put.status).toBe(200);
  const sid = (await call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
  const submit = (command: string, wait = "?wait=30") =>
    call("POST", `/v1/sessions/${sid}/calls${wait}`, { key, body: { tool: "Bash", input: { command } } });
  const first = await submit("echo before > /workspace/f");
  expect(first.body.job?.status, JSON.stringify(first.body)).toBe("succeeded");

  // A call running when the disk fills, held until the host lets it go; its result (100 kB) is
  // stored once the disk is full.
  const workspace = sessionPaths(join(config.DATA_DIR, "sb"), config.SERVICE_ID, sid).workspaceDir;
  const script =
    "while [ ! -e /workspace/go ]; do sleep 0.1; done\necho ran >> /workspace/f\nhead -c 100000 /dev/zero | tr '\\0' x\n";
  const wrote = await call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key,
    body: { tool: "Write", input: { file_path: "/workspace/hold.sh", content: script } },
  });
  expect(wrote.body.job?.status, JSON.stringify(wrote.body)).toBe("succeeded");
  const held = await submit("sh /workspace/hold.sh", "");
  expect(held.status, JSON.stringify(held.body)).toBe(202);

  fill();
  // Calls with a large input until the database cannot grow (its log reuses freed pages first):
  // refused 503 with a message that says why, never a 500.
  const pad = "#".repeat(60_000);
  let refused: Awaited<ReturnType<typeof submit>> | undefined;
  const accepted: string[] = [];
  for (let i = 0; i < 60 && !refused; i++) {
    const r = await within(30_000, `submit ${i}`, submit(`echo full-${i} ${pad}`, ""));
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
  writeFileSync(join(workspace, "go"), "");
  await new Promise((r) => setTimeout(r, 2000));
  const db = new Database(join(dir, "toolshed.db"), { readonly: true });
  expect(db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
  db.close();

  // Space freed: served again without a restart; the held call stored once, run once.
  rmSync(filler);
  const done = await waitForJob(call, key, held.body.job.id, { timeoutMs: 60_000 });
  expect(done.status, JSON.stringify(done).slice(0, 2000)).toBe("succeeded");
  expect(done.result.content[0].text).toMatch(/^x{1000}/);
  // Every call accepted while the disk filled ends (none left `running`), each run once.
  const ends = await waitForJobs(call, key, accepted, undefined, { timeoutMs: 60_000 });
  for (const j of ends) expect(j.status, JSON.stringify(j).slice(0, 1000)).toBe("succeeded");
  const again = await within(60_000, "again", submit("cat /workspace/f"));
  expect(again.body.job?.status, JSON.stringify(again.body)).toBe("succeeded");
  expect(again.body.job.result.content[0].text).toBe("before\nran\n");
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
