/**
 * Deliveries a crash lost: the live path writes a job's delivery row after the job's own commit
 * (record-events.ts), so a process that dies in between leaves the job with none. A pass finds,
 * per tenant with a webhook, the jobs created within the window whose current status announces
 * an event the webhook wants, that reached it at least `settleMs` ago, and that have no row for
 * it; it records them as the live path does (same body, once per (job, event): the unique index
 * makes a pass on every host at once, or one racing the live path, add each row once).
 */
import { and, asc, eq, gte, inArray, lte, notExists, or, type SQL, sql } from "drizzle-orm";
import { type JobStatus, TERMINAL } from "../../contracts/job.js";
import type { WebhookEvent } from "../../contracts/webhook.js";
import { type Db, tablesOf } from "../../db/db.js";
import type { Logger } from "../../log.js";
import { EXPIRY_ACTOR } from "../calls/approval-expiry.js";
import type { WebhookQueue } from "../ports.js";
import { recordWebhookEvents } from "./record-events.js";

export interface DeliveryReconcileOptions {
  /** Only jobs created this recently (bounds each pass's index range). */
  windowMs: number;
  /** A status this fresh is left to its live publish (racing it would add nothing). */
  settleMs: number;
  /** Jobs recorded per tenant per pass at most; the rest are found by the next pass. */
  batch: number;
}

/** One pass over every tenant with a webhook; returns the jobs whose deliveries it recorded. */
export async function reconcileDeliveries(
  deps: { db: Db; logger: Logger; webhooks: { queue: WebhookQueue } },
  opts: DeliveryReconcileOptions,
): Promise<number> {
  const { jobs, webhooks, webhookDeliveries: d } = tablesOf(deps.db);
  const hooks = await deps.db
    .select({ tenantId: webhooks.tenantId, events: webhooks.events, updatedAt: webhooks.updatedAt })
    .from(webhooks);
  const now = Date.now();
  const windowStart = new Date(now - opts.windowMs).toISOString();
  const settled = new Date(now - opts.settleMs).toISOString();
  // When the job reached its status: its finish, else its creation (an awaiting status is set
  // at submit; one reached by an approval has no time of its own and counts from the submit).
  const reached = sql`coalesce(${jobs.finishedAt}, ${jobs.createdAt})`;
  let recorded = 0;
  for (const hook of hooks) {
    const wanted = hook.events.filter(isEvent);
    const statuses = [...new Set(wanted.flatMap((e) => STATUSES_OF[e]))];
    if (statuses.length === 0) continue;
    const missing = (event: WebhookEvent) =>
      notExists(
        deps.db
          .select({ one: sql`1` })
          .from(d)
          .where(and(eq(d.jobId, jobs.id), eq(d.event, event))),
      );
    const owed = or(...wanted.map((e) => and(announces(jobs, e), missing(e))));
    const rows = await deps.db
      .select()
      .from(jobs)
      .where(
        and(
          eq(jobs.tenantId, hook.tenantId),
          inArray(jobs.status, statuses),
          gte(jobs.createdAt, windowStart),
          lte(reached, settled),
          // A status reached before the webhook was saved was never owed to it.
          gte(reached, hook.updatedAt),
          owed,
        ),
      )
      .orderBy(asc(jobs.createdAt))
      .limit(opts.batch);
    for (const row of rows) await recordWebhookEvents(deps, row);
    recorded += rows.length;
  }
  if (recorded > 0)
    deps.logger.warn({ recorded }, "recorded webhook deliveries a stopped process left unwritten");
  return recorded;
}

/** The statuses whose jobs announce each event (record-events.ts eventsFor). */
const STATUSES_OF: Record<WebhookEvent, readonly JobStatus[]> = {
  "job.awaiting_approval": ["awaiting_approval"],
  "job.awaiting_external": ["awaiting_external"],
  "job.finished": TERMINAL,
  "approval.expired": ["denied"],
};

const isEvent = (e: string): e is WebhookEvent => e in STATUSES_OF;

/** Whether a job row in its current state announces `event` (the SQL form of eventsFor). */
function announces(jobs: ReturnType<typeof tablesOf>["jobs"], event: WebhookEvent): SQL | undefined {
  if (event === "approval.expired") return and(eq(jobs.status, "denied"), eq(jobs.approvedBy, EXPIRY_ACTOR));
  return inArray(jobs.status, [...STATUSES_OF[event]]);
}
