/**
 * `npm run bench -- reconcile [--jobs N]`: what one webhook-delivery reconcile pass costs on
 * SQLite when a tenant with a webhook has N finished jobs (default 100,000) inside the window, each
 * with its delivery row (nothing owed: the usual case), next to a pass for a tenant without
 * jobs (the baseline). Prints each pass's time and the longest the event loop waited meanwhile.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { tablesOf } from "../src/db/db.js";
import { createLogger } from "../src/log.js";
import { reconcileDeliveries } from "../src/service/webhooks/reconcile-deliveries.js";
import { seedDialectSession } from "../test/support/dialects.js";
import { jobRow } from "../test/support/rows.js";
import { openTestDb } from "../test/support/test-db.js";

export async function run(args: string[]): Promise<void> {
  const at = args.indexOf("--jobs");
  const n = at >= 0 ? Number(args[at + 1]) : 100_000;
  const dir = mkdtempSync(join(tmpdir(), "tsr-"));
  const opened = openTestDb(join(dir, "r.db"));
  const db = opened.db;
  const { jobs, webhooks, webhookDeliveries } = tablesOf(db);
  try {
    const { tenantId } = await seedDialectSession(db, "ses_rec");
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const hook = { url: "http://127.0.0.1:9/", secretEnc: "x", createdAt: hourAgo, updatedAt: hourAgo };
    await db.insert(webhooks).values({ tenantId, events: ["job.finished", "approval.expired"], ...hook });
    const deps = {
      db,
      logger: createLogger("silent"),
      webhooks: { queue: { enqueue: async () => {} } },
    };
    const opts = { windowMs: 7_200_000, settleMs: 5000, batch: 200 };
    const time = async () => {
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const t0 = performance.now();
      const recorded = await reconcileDeliveries(deps, opts);
      const ms = performance.now() - t0;
      delay.disable();
      // The longest the loop waited meanwhile: what a request arriving then would have waited.
      return { ms: Math.round(ms), loopMaxMs: Math.round(delay.max / 1e6), recorded };
    };
    process.stdout.write(`empty tenant: ${JSON.stringify(await time())}\n`);
    for (let done = 0; done < n; done += 1000) {
      const at = new Date(Date.now() - 1_800_000 + done).toISOString();
      const rows = Array.from({ length: Math.min(1000, n - done) }, () => {
        const id = `job_${randomBytes(9).toString("hex")}`;
        return jobRow({
          id,
          tenantId,
          sessionId: "ses_rec",
          status: "succeeded",
          createdAt: at,
          finishedAt: at,
        });
      });
      await db.insert(jobs).values(rows);
      await db.insert(webhookDeliveries).values(
        rows.map((r) => ({
          id: `whd_${r.id}`,
          tenantId,
          event: "job.finished",
          jobId: r.id,
          body: "{}",
          url: hook.url,
          status: "delivered" as const,
          createdAt: at,
        })),
      );
    }
    for (let i = 0; i < 3; i++)
      process.stdout.write(`${n} jobs, none owed: ${JSON.stringify(await time())}\n`);
  } finally {
    opened.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
