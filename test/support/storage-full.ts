/**
 * The database's disk fills under a running service (disk-full: SQLite on a small DATA_DIR;
 * postgres-disk-full: a Postgres tablespace): what both tests check, with the disk theirs.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { sessionPaths } from "../../src/sandbox/session-paths.js";
import { type Harness, seedBashTenant } from "./harness.js";
import { waitForJob, waitForJobs } from "./wait-for-job.js";

export interface FullDisk {
  fill(): void;
  free(): void;
  /** Looked at while the disk is full, once the held call has ended (its end not stored). */
  whileFull?(): void;
}

/**
 * A call is held running while the disk fills; calls with a 60 kB input are submitted until one
 * is refused: `503 UNAVAILABLE` "storage full" with Retry-After, never a 500. The held call ends
 * while the disk is full. Once freed, without a restart: the held call is stored `succeeded`,
 * its command run once; every accepted call succeeded, each run once; new calls run. Returns the
 * held call as stored, and how many calls were accepted before the refusal.
 */
export async function storageFullScenario(h: Harness, disk: FullDisk) {
  const { call, config } = h;
  const t = await seedBashTenant(call);
  const key = t.agentKey;
  const sid = (await call("POST", "/v1/sessions", { key, body: {} })).body.id as string;
  const submit = (command: string, wait = "?wait=30") =>
    call("POST", `/v1/sessions/${sid}/calls${wait}`, { key, body: { tool: "Bash", input: { command } } });
  const first = await submit("echo before > /workspace/f");
  expect(first.body.job?.status, JSON.stringify(first.body)).toBe("succeeded");

  // Held until the test lets it go; its 100 kB result is stored once the disk is full.
  const workspace = sessionPaths(join(config.DATA_DIR, "sb"), config.SERVICE_ID, sid).workspaceDir;
  writeFileSync(
    join(workspace, "hold.sh"),
    "while [ ! -e /workspace/go ]; do sleep 0.1; done\necho ran >> /workspace/f\nhead -c 100000 /dev/zero | tr '\\0' x\n",
  );
  const held = await submit("sh /workspace/hold.sh", "");
  expect(held.status, JSON.stringify(held.body)).toBe(202);
  await waitForJob(call, key, held.body.job.id, { until: ["running"], timeoutMs: 30_000, intervalMs: 50 });

  disk.fill();
  // Until the database cannot grow (SQLite's log and Postgres's pages reuse free space first).
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
  writeFileSync(join(workspace, "go"), "");
  await new Promise((r) => setTimeout(r, 2000));
  disk.whileFull?.();

  disk.free();
  const done = await waitForJob(call, key, held.body.job.id, { timeoutMs: 60_000 });
  expect(done.status, JSON.stringify(done).slice(0, 2000)).toBe("succeeded");
  expect(done.result.content[0].text).toMatch(/^x{1000}/);
  const ends = await waitForJobs(call, key, accepted, undefined, { timeoutMs: 60_000 });
  for (const j of ends) expect(j.status, JSON.stringify(j).slice(0, 1000)).toBe("succeeded");
  const again = await submit("cat /workspace/f; sort -n /workspace/accepted 2>/dev/null | uniq -d | wc -l");
  expect(again.body.job?.status, JSON.stringify(again.body)).toBe("succeeded");
  // `ran` once; no accepted call ran twice.
  expect(again.body.job.result.content[0].text).toBe("before\nran\n0\n");
  return { held: done, accepted: accepted.length };
}
