/**
 * The pruner's loop: a pass that fails (the database is gone, the disk full) is logged and
 * counted, the service goes on, and the next interval prunes; with a lease, only the holder runs.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { tablesOf } from "../../../src/db/db.js";
import type { OpenedDb } from "../../../src/db/open.js";
import { createLogger } from "../../../src/log.js";
import { Metrics } from "../../../src/service/metrics.js";
import {
  type RetentionSettings,
  retentionSettings,
  startPruner,
} from "../../../src/service/retention/pruner.js";
import { jobRow, sessionRow } from "../../support/rows.js";
import { openTestDb } from "../../support/test-db.js";
import { pollUntil } from "../../support/wait-for-job.js";

/** The defaults, without pauses. */
const SETTINGS: RetentionSettings = { ...retentionSettings(loadConfig({})), pauseMs: 0, batch: 10 };
const old = new Date(Date.now() - 60 * 86_400_000).toISOString();

let dir: string;
let opened: OpenedDb;
let lines: Record<string, unknown>[];
let deps: { db: OpenedDb["db"]; metrics: Metrics; logger: ReturnType<typeof createLogger> };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "tsp-"));
  opened = openTestDb(join(dir, "t.db"));
  lines = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  deps = { db: opened.db, metrics: new Metrics(), logger: createLogger("info", sink) };
  const { tenants, sessions, jobs } = tablesOf(opened.db);
  await opened.db.insert(tenants).values({ id: "ten_p", name: "p", createdAt: old });
  await opened.db.insert(sessions).values(sessionRow({ id: "ses_p", tenantId: "ten_p" }));
  await opened.db.insert(jobs).values(
    jobRow({
      id: "job_old",
      tenantId: "ten_p",
      sessionId: "ses_p",
      status: "succeeded",
      createdAt: old,
      finishedAt: old,
    }),
  );
});
afterEach(() => {
  opened.close();
  rmSync(dir, { recursive: true, force: true });
});

const counter = async (name: string): Promise<[string, number][]> => {
  const text = await deps.metrics.render();
  return [...text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\d+)`, "gm"))].map((m): [string, number] => [
    m[1] ?? "",
    Number(m[2]),
  ]);
};

it("a pass that did work logs one line with its counts (no row contents) and counts them by kind", async () => {
  const pruner = startPruner(deps, SETTINGS, { intervalMs: 3_600_000 });
  expect(await pruner.pass()).toEqual({ jobs: 1 });
  expect(await pruner.pass()).toEqual({});
  await pruner.stop();
  expect(await counter("toolshed_rows_pruned_total")).toEqual([['{kind="jobs"}', 1]]);
  const passes = lines.filter((l) => l.msg === "retention pass");
  expect(passes).toHaveLength(1);
  expect(passes[0]).toMatchObject({ pruned: { jobs: 1 } });
});

it("a failing pass is logged and counted, and the next interval prunes once the database answers again", async () => {
  // The first pass finds the database gone (closed); the loop must survive it.
  const { $client } = opened.db as unknown as { $client: { prepare: (s: string) => unknown } };
  const prepare = $client.prepare.bind($client);
  let failing = true;
  $client.prepare = (s: string) => {
    if (failing) throw new Error("SQLITE_FULL: database or disk is full");
    return prepare(s);
  };
  const pruner = startPruner(deps, SETTINGS, { intervalMs: 20 });
  await pollUntil(
    () => counter("toolshed_prune_failures_total"),
    (c) => (c[0]?.[1] ?? 0) >= 1,
    { timeoutMs: 5000 },
  );
  expect(
    lines.some((l) => l.msg === "retention pass failed; the next interval tries again" && l.level === 40),
  ).toBe(true);
  failing = false;
  await pollUntil(
    () => counter("toolshed_rows_pruned_total"),
    (c) => c.length > 0,
    { timeoutMs: 5000 },
  );
  await pruner.stop();
  $client.prepare = prepare;
});

it("with a lease, a process that does not hold it this interval does not prune", async () => {
  let asked = 0;
  const pruner = startPruner(deps, SETTINGS, {
    intervalMs: 20,
    lease: async () => {
      asked++;
      return false;
    },
  });
  await pollUntil(
    async () => asked,
    (n) => n >= 3,
    { timeoutMs: 5000 },
  );
  await pruner.stop();
  const { jobs } = tablesOf(opened.db);
  expect(await opened.db.select({ id: jobs.id }).from(jobs)).toHaveLength(1);
});

it("a pass longer than the interval is not followed by a queue of passes: ticks meanwhile do nothing", async () => {
  const { jobs } = tablesOf(opened.db);
  const more = [1, 2, 3].map((i) =>
    jobRow({
      id: `job_o${i}`,
      tenantId: "ten_p",
      sessionId: "ses_p",
      status: "failed",
      createdAt: old,
      finishedAt: old,
    }),
  );
  await opened.db.insert(jobs).values(more);
  let asked = 0;
  // Batches of 1 with 150 ms pauses: a pass of ~600 ms against a 20 ms interval.
  const slow = { ...SETTINGS, batch: 1, pauseMs: 150 };
  const pruner = startPruner(deps, slow, {
    intervalMs: 20,
    lease: async () => {
      asked++;
      return true;
    },
  });
  await pollUntil(
    async () => asked,
    (n) => n >= 1,
    { timeoutMs: 5000 },
  );
  const during = asked;
  await new Promise((r) => setTimeout(r, 300));
  // Ticks kept coming (every 20 ms) while the first pass ran: none took the lease.
  expect(asked).toBe(during);
  await pruner.stop();
});
