/**
 * The queries on a call's path and the workers' sweeps seek an index on `jobs`, never scan the
 * table. The partial indexes (job-predicates.ts) hold only active or pending rows, and SQLite
 * uses one only for a query that carries its term with the statuses inlined: a query that binds
 * them as parameters scans the table, and fails here. The audit trail, written by every call, is
 * one index too (its key), which its list reads in order.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { tablesOf } from "../../src/db/db.js";
import type { OpenedDb } from "../../src/db/open.js";
import { SqliteJobStore } from "../../src/db/stores/sqlite-job-store.js";
import { createLogger } from "../../src/log.js";
import { listAudit } from "../../src/service/calls/audit.js";
import { prunePass, type RetentionSettings, retentionSettings } from "../../src/service/retention/pruner.js";
import { releaseLostHost } from "../../src/service/sessions/session-hosts.js";
import { reconcileDeliveries } from "../../src/service/webhooks/reconcile-deliveries.js";
import { jobsExpectingRun, jobsExpectingRunAfter } from "../../src/service/worker/recovery.js";
import { seedDialectSession } from "../support/dialects.js";
import { jobRow } from "../support/rows.js";
import { openTestDb } from "../support/test-db.js";

/** The defaults, without pauses. */
const RETENTION: RetentionSettings = { ...retentionSettings(loadConfig({})), pauseMs: 0, batch: 100 };
let dir: string;
let opened: OpenedDb;
/** Every statement prepared on the database, by its SQL. */
let prepared: Set<string>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tsq-"));
  opened = openTestDb(join(dir, "t.db"));
  const sqlite = (opened.db as unknown as { $client: Database.Database }).$client;
  const prepare = sqlite.prepare.bind(sqlite);
  prepared = new Set();
  sqlite.prepare = ((source: string) => {
    prepared.add(source);
    return prepare(source);
  }) as typeof sqlite.prepare;
});
afterEach(() => {
  opened.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The query plan of each statement that reads `jobs` with a status term, as SQLite would run it. */
function plansOnJobs(): Map<string, string[]> {
  const sqlite = (opened.db as unknown as { $client: Database.Database }).$client;
  const plans = new Map<string, string[]>();
  for (const source of [...prepared]) {
    if (!/from "jobs"|update "jobs"/.test(source) || !/"status"/.test(source)) continue;
    const params = Array.from(source.match(/\?/g) ?? [], () => null);
    const rows = sqlite.prepare(`explain query plan ${source}`).all(...params) as { detail: string }[];
    plans.set(
      source,
      rows.map((r) => r.detail),
    );
  }
  return plans;
}

/** A session of its own, the store, an audit entry for a job, and a job `a` and a safe job `b` of it. */
async function seeded(sessionId: string) {
  const { tenantId } = await seedDialectSession(opened.db, sessionId);
  const store = new SqliteJobStore(opened.db);
  const audit = (jobId: string) => ({
    tenantId,
    sessionId,
    jobId,
    kind: "decision" as const,
    actorKeyId: null,
    data: {},
  });
  const a = jobRow({ id: "job_a", tenantId, sessionId });
  const b = jobRow({ id: "job_b", tenantId, sessionId, concurrencySafe: true });
  return { tenantId, store, audit, a, b };
}

it("a call's claim, finish and successors, recovery and a lost host's release seek indexes", async () => {
  const sessionId = "ses_plans";
  const { store, audit, a, b } = await seeded(sessionId);
  await store.insertJob(a, audit(a.id), { maxActive: 10 });
  await store.insertClaimed(b, audit(b.id), { maxActive: 10, claim: { worker: "w", hostId: "h" } });
  await store.claim(a.id, { worker: "w", takeOver: false });
  await store.finish(a.id, "succeeded", { content: [], state: "success" });
  await store.queuedAfter(sessionId, 1, 32);
  await store.dueApprovals(new Date().toISOString());
  await jobsExpectingRun(opened.db);
  await jobsExpectingRunAfter(opened.db, "", 100);
  await releaseLostHost(opened.db, "h");
  const plans = plansOnJobs();
  const seeks = (pattern: RegExp) => [...plans].filter(([source]) => pattern.test(source));
  // Each of these was seen, and each seeks (or walks) the partial index it is written for.
  for (const [what, pattern, index] of [
    ["blocker", /"seq" < \?/, "jobs_active_idx"],
    ["queued after", /"seq" > \?/, "jobs_active_idx"],
    ["due approvals", /"approval_expires_at" <= \?/, "jobs_approval_expiry_idx"],
    ["expecting a run", /^select "id" from "jobs" where "jobs"."status" in/, "jobs_active_idx"],
  ] as const) {
    const found = seeks(pattern);
    expect(found.length, what).toBeGreaterThan(0);
    for (const [source, plan] of found) expect(plan.join(" | "), `${what}: ${source}`).toContain(index);
  }
  for (const [source, plan] of plans) expect(plan, source).not.toContain("SCAN jobs");
});

it("a claim's blocker look-up binds no LIMIT (SQLite plans with a bound LIMIT's value, so it re-prepared the statement on every run)", async () => {
  const sessionId = "ses_limit";
  const { tenantId, store, audit, a, b } = await seeded(sessionId);
  const c = jobRow({ id: "job_c", tenantId, sessionId });
  await store.insertClaimed(a, audit(a.id), { maxActive: 10, claim: { worker: "w", hostId: "h" } });
  await store.insertJob(b, audit(b.id), { maxActive: 10 });
  await store.insertJob(c, audit(c.id), { maxActive: 10 });
  // Both blockers find the running `a` ahead (one row; `get` steps once), and only after it ends none.
  expect(await store.claim(b.id, { worker: "w", takeOver: false })).toEqual({
    kind: "wait",
    blockedBy: a.id,
  });
  expect(await store.claim(c.id, { worker: "w", takeOver: false })).toMatchObject({ kind: "wait" });
  await store.finish(a.id, "succeeded", { content: [], state: "success" });
  expect(await store.claim(b.id, { worker: "w", takeOver: false })).toMatchObject({ kind: "run" });
  const blockers = [...prepared].filter((source) => /^select "id" from "jobs" .*"seq" < \?/.test(source));
  expect(blockers).toHaveLength(2);
  for (const source of blockers) expect(source).not.toMatch(/limit \?/i);
});

it("the audit trail is one index, its key: an entry is one b-tree insert besides the table, and the list reads it in order without sorting", async () => {
  const { tenantId, store, audit, a } = await seeded("ses_audit");
  await store.insertJob(a, audit(a.id), { maxActive: 10 });
  const sqlite = (opened.db as unknown as { $client: Database.Database }).$client;
  // One index on audit (its key: tenant, time, id); main had an id key and a tenant index too.
  expect((sqlite.pragma("index_list(audit)") as { name: string }[]).map((i) => i.name)).toEqual([
    "sqlite_autoindex_audit_1",
  ]);
  const admin = { keyId: "key_admin", role: "tenant_admin" as const, tenantId };
  for (const q of [{}, { since: "2026-01-01T00:00:00.000Z" }, { jobId: a.id }, { sessionId: "ses_audit" }]) {
    prepared.clear();
    expect(await listAudit({ db: opened.db }, admin, tenantId, q)).toHaveLength(1);
    const [source] = [...prepared].filter((s) => /from "audit"/.test(s));
    const params = Array.from(source!.match(/\?/g) ?? [], () => null);
    const plan = (sqlite.prepare(`explain query plan ${source}`).all(...params) as { detail: string }[])
      .map((r) => r.detail)
      .join(" | ");
    expect(plan, JSON.stringify(q)).toContain("sqlite_autoindex_audit_1 (tenant_id=?");
    expect(plan, JSON.stringify(q)).not.toContain("TEMP B-TREE");
  }
});

it("retention's batches are chosen through indexes: no pass scans jobs, audit, deliveries or sessions (their rows hold MiBs)", async () => {
  const { tenantId, store, audit, a } = await seeded("ses_prune");
  await store.insertJob(a, audit(a.id), { maxActive: 10 });
  await store.finish(a.id, "succeeded", { content: [], state: "success" });
  // Far enough ahead that the job and its audit entry are past retention: the deletes run too.
  const later = new Date(Date.now() + 1000 * 86_400_000);
  await prunePass(opened.db, { ...RETENTION, batch: 2 }, later);
  const sqlite = (opened.db as unknown as { $client: Database.Database }).$client;
  const plans = [...prepared]
    .filter((s) => /^(select|delete)/.test(s) && /"(jobs|audit|webhook_deliveries|sessions)"/.test(s))
    .map((source) => {
      const params = Array.from(source.match(/\?/g) ?? [], () => tenantId);
      const rows = sqlite.prepare(`explain query plan ${source}`).all(...params) as { detail: string }[];
      return [source, rows.map((r) => r.detail).join(" | ")] as const;
    });
  expect(plans.length).toBeGreaterThan(3);
  if (process.env.SHOW_PLANS) for (const p of plans) console.log(p.join("\n  => "));
  for (const [source, plan] of plans)
    expect(plan, source).not.toMatch(/SCAN (jobs|audit|webhook_deliveries|sessions)\b(?! USING)/);
  const jobsPick = plans.find(([s]) => /^select "id", "created_at" from "jobs"/.test(s));
  expect(jobsPick?.[1]).toContain("jobs_tenant_status_created_idx");
});

it("the webhook-delivery reconcile walks (tenant, status, created_at) and probes the once index: it scans no table", async () => {
  const { tenantId, store, audit, a } = await seeded("ses_whr");
  await store.insertJob(a, audit(a.id), { maxActive: 10 });
  await store.finish(a.id, "succeeded", { content: [], state: "success" });
  const { webhooks } = tablesOf(opened.db);
  const at = new Date(Date.now() - 60_000).toISOString();
  await opened.db.insert(webhooks).values({
    tenantId,
    url: "http://127.0.0.1:9/",
    events: ["job.finished", "approval.expired", "job.awaiting_approval"],
    secretEnc: "sealed",
    createdAt: at,
    updatedAt: at,
  });
  const deps = {
    db: opened.db,
    logger: createLogger("silent"),
    webhooks: { queue: { enqueue: async () => {} } },
  };
  await reconcileDeliveries(deps, { windowMs: 3_600_000, settleMs: 0, batch: 10 });
  const sqlite = (opened.db as unknown as { $client: Database.Database }).$client;
  const plans = [...prepared]
    .filter((s) => /^select/.test(s) && /from "jobs"/.test(s) && /coalesce|offset/.test(s))
    .map((source) => {
      const params = Array.from(source.match(/\?/g) ?? [], () => "x");
      const rows = sqlite.prepare(`explain query plan ${source}`).all(...params) as { detail: string }[];
      return [source, rows.map((r) => r.detail).join(" | ")] as const;
    });
  // The page's edge and the owed rows of the page, once per status the webhook's events come from.
  expect(plans.length).toBeGreaterThanOrEqual(2);
  for (const [source, plan] of plans) {
    expect(plan, source).toContain("jobs_tenant_status_created_idx");
    expect(plan, source).not.toMatch(/SCAN (jobs|webhook_deliveries)\b/);
    if (/coalesce/.test(source)) expect(plan, source).toContain("webhook_deliveries_once_idx");
  }
});
