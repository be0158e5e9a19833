/**
 * `npm run bench -- lists [jobs=100000] [tenants=10]`: the cost of one page of `GET /v1/jobs`
 * (through the service verb, on a real SQLite file) on a database of that many jobs: the first
 * page, a page deep in the list through its cursor, a status filter and the approvals inbox,
 * next to a lookup of one job by id in the same run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../src/db/open.js";
import { jobs, sessions, tenants } from "../src/db/schema.js";
import { listApprovals } from "../src/service/calls/approvals-inbox.js";
import { findJob } from "../src/service/calls/job-view.js";
import { listJobs } from "../src/service/calls/list-jobs.js";
import type { Principal } from "../src/service/tenancy/principal.js";

const STATUSES = ["succeeded", "succeeded", "succeeded", "failed", "denied", "awaiting_approval"] as const;

async function timeEach(n: number, fn: () => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1e6 / n;
}

export async function run(args: string[]): Promise<void> {
  const total = Number(args[0] ?? 100_000);
  const tenantCount = Number(args[1] ?? 10);
  const dir = mkdtempSync(join(tmpdir(), "tsl-"));
  const { db, close } = openDb(join(dir, "t.db"));
  try {
    const t0 = Date.parse("2026-01-01T00:00:00Z");
    db.transaction((tx) => {
      for (let t = 0; t < tenantCount; t++) {
        tx.insert(tenants)
          .values({ id: `ten_${t}`, name: `t${t}`, createdAt: "2026-01-01T00:00:00.000Z" })
          .run();
        tx.insert(sessions)
          .values({
            id: `ses_${t}`,
            tenantId: `ten_${t}`,
            mode: "default",
            cwd: "/workspace",
            home: "/home/agent",
            workingDirectories: [],
            rules: { allow: [], deny: [], ask: [] },
            status: "active",
            createdAt: "2026-01-01T00:00:00.000Z",
            lastUsedAt: "2026-01-01T00:00:00.000Z",
          })
          .run();
      }
      for (let i = 0; i < total; i++) {
        const t = i % tenantCount;
        tx.insert(jobs)
          .values({
            id: `job_${String(i).padStart(20, "0")}`,
            tenantId: `ten_${t}`,
            sessionId: `ses_${t}`,
            tool: i % 2 ? "Bash" : "Read",
            input: { command: "echo hi" },
            status: STATUSES[i % STATUSES.length] as (typeof STATUSES)[number],
            decision: {
              behavior: "allow",
              message: "m",
              reason: null,
              mode: "default",
              bypassImmune: false,
              suggestions: [],
              decidedBy: "rule",
            },
            concurrencySafe: false,
            createdAt: new Date(t0 + i * 10).toISOString(),
          })
          .run();
      }
    });
    const p: Principal = { keyId: "key_b", role: "tenant_admin", tenantId: "ten_3" };
    const first = await listJobs({ db }, p, { limit: 50 });
    let deep = first;
    for (let i = 0; i < 100 && deep.nextCursor; i++)
      deep = await listJobs({ db }, p, { limit: 50, cursor: deep.nextCursor });
    const cursor = deep.nextCursor ?? undefined;
    const rows: [string, number][] = [
      ["one job by id (baseline)", await timeEach(2000, () => findJob(db, "job_00000000000000000003"))],
      ["GET /v1/jobs first page (50)", await timeEach(200, () => listJobs({ db }, p, { limit: 50 }))],
      [
        "GET /v1/jobs page 101 via cursor",
        await timeEach(200, () => listJobs({ db }, p, { limit: 50, cursor })),
      ],
      [
        "status=failed,denied (50)",
        await timeEach(200, () => listJobs({ db }, p, { limit: 50, status: "failed,denied" })),
      ],
      [
        "tool=Bash&status=awaiting_approval",
        await timeEach(200, () => listJobs({ db }, p, { tool: "Bash", status: "awaiting_approval" })),
      ],
      ["GET /v1/approvals (50)", await timeEach(200, () => listApprovals({ db }, p, { limit: 50 }))],
    ];
    process.stdout.write(`${total} jobs over ${tenantCount} tenants (one tenant's view)\n`);
    for (const [name, ms] of rows) process.stdout.write(`${name.padEnd(40)} ${ms.toFixed(3)} ms\n`);
  } finally {
    close();
    rmSync(dir, { recursive: true, force: true });
  }
}
