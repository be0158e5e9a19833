/**
 * Deliveries a crash lost: the live path writes a job's delivery row after the job's own commit
 * (record-events.ts), so a process that dies in between leaves the job with none. A pass finds,
 * per tenant with a webhook, the jobs created within the window whose current status announces
 * an event the webhook wants, that reached it at least `settleMs` ago, and that have no row for
 * it; it records them as the live path does (same body, once per (job, event): the unique index
 * makes a pass on every host at once, or one racing the live path, add each row once).
 */
import { and, asc, eq, gte, inArray, lte, notExists, or, type SQL, sql } from "drizzle-orm";
import { EXPIRY_ACTOR, type JobStatus, TERMINAL } from "../../contracts/job.js";
import type { WebhookEvent } from "../../contracts/webhook.js";
import { type Db, tablesOf } from "../../db/db.js";
import type { Logger } from "../../log.js";
import type { WebhookQueue } from "../ports.js";
import { recordWebhookEvents } from "./record-events.js";

export interface DeliveryReconcileOptions {
  /** Only jobs created this recently (bounds each pass's index range). */
  windowMs: number;
  /** A status this fresh is left to its live publish (racing it would add nothing). */
  settleMs: number;
  /** Jobs recorded per tenant per pass at most (then a page more); the rest go at the next pass. */
  batch: number;
  /** Ends the pass at the next page (a stopping worker does not wait for a long window's walk). */
  signal?: AbortSignal;
}

/** Index entries looked at per statement: a pass never holds the loop (SQLite) long. */
const PAGE = 1000;

type Deps = { db: Db; logger: Logger; webhooks: { queue: WebhookQueue } };
type Hook = { tenantId: string; events: string[]; updatedAt: string };
type Key = { createdAt: string; id: string };
type Jobs = ReturnType<typeof tablesOf>["jobs"];

/**
 * Jobs after `k` in (created_at, id) order: the walk's cursor. The plain bound on created_at is
 * what the index seek starts from (SQLite does not seek on the row value alone).
 */
const past = (jobs: Jobs, k: Key) =>
  and(gte(jobs.createdAt, k.createdAt), sql`(${jobs.createdAt}, ${jobs.id}) > (${k.createdAt}, ${k.id})`);
/** Jobs up to `k` (included) in that order. */
const upTo = (jobs: Jobs, k: Key) =>
  and(lte(jobs.createdAt, k.createdAt), sql`(${jobs.createdAt}, ${jobs.id}) <= (${k.createdAt}, ${k.id})`);

/** One pass over every tenant with a webhook; returns the jobs whose deliveries it recorded. */
export async function reconcileDeliveries(deps: Deps, opts: DeliveryReconcileOptions): Promise<number> {
  const { webhooks } = tablesOf(deps.db);
  const hooks = await deps.db
    .select({ tenantId: webhooks.tenantId, events: webhooks.events, updatedAt: webhooks.updatedAt })
    .from(webhooks);
  const now = Date.now();
  const bounds = {
    windowStart: new Date(now - opts.windowMs).toISOString(),
    settled: new Date(now - opts.settleMs).toISOString(),
  };
  let recorded = 0;
  for (const hook of hooks) recorded += await reconcileTenant(deps, hook, bounds, opts);
  if (recorded > 0)
    deps.logger.warn({ recorded }, "recorded webhook deliveries a stopped process left unwritten");
  return recorded;
}

/**
 * One tenant: each status its webhook's events come from, walked along (tenant, status,
 * created_at, id) a page at a time (index entries only); of each page, the jobs owed a delivery.
 */
async function reconcileTenant(
  deps: Deps,
  hook: Hook,
  b: { windowStart: string; settled: string },
  { batch, signal }: DeliveryReconcileOptions,
): Promise<number> {
  const { jobs, webhookDeliveries: d } = tablesOf(deps.db);
  const wanted = hook.events.filter(isEvent);
  const missing = (event: WebhookEvent) =>
    notExists(
      deps.db
        .select({ one: sql`1` })
        .from(d)
        .where(and(eq(d.jobId, jobs.id), eq(d.event, event))),
    );
  const owed = or(...wanted.map((e) => and(announces(jobs, e), missing(e))));
  // When the job reached its status: its finish, else its creation (an awaiting status is set
  // at submit; one reached by an approval has no time of its own and counts from the submit).
  const reached = sql`coalesce(${jobs.finishedAt}, ${jobs.createdAt})`;
  let recorded = 0;
  for (const status of new Set(wanted.flatMap((e) => STATUSES_OF[e]))) {
    const ofStatus = and(eq(jobs.tenantId, hook.tenantId), eq(jobs.status, status));
    let from: Key | undefined;
    // One lower bound on created_at only: SQLite seeks from one, and would scan from the window's
    // start on every page had it both.
    const after = () => (from ? past(jobs, from) : gte(jobs.createdAt, b.windowStart));
    while (recorded < batch && !signal?.aborted) {
      // The page's last key (index entries only); none: the rest of the window is the last page.
      const [to] = await deps.db
        .select({ createdAt: jobs.createdAt, id: jobs.id })
        .from(jobs)
        .where(and(ofStatus, after()))
        .orderBy(asc(jobs.createdAt), asc(jobs.id))
        .limit(1)
        .offset(PAGE - 1);
      const rows = await deps.db
        .select()
        .from(jobs)
        .where(
          and(
            ofStatus,
            after(),
            to && upTo(jobs, to),
            lte(reached, b.settled),
            // A status reached before the webhook was saved was never owed to it.
            gte(reached, hook.updatedAt),
            owed,
          ),
        );
      for (const row of rows) await recordWebhookEvents(deps, row);
      recorded += rows.length;
      if (!to) break;
      from = to;
      // Between pages, the loop serves others (a SQLite statement holds it while it runs).
      await new Promise((r) => setImmediate(r));
    }
  }
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
function announces(jobs: Jobs, event: WebhookEvent): SQL | undefined {
  if (event === "approval.expired") return and(eq(jobs.status, "denied"), eq(jobs.approvedBy, EXPIRY_ACTOR));
  return inArray(jobs.status, [...STATUSES_OF[event]]);
}
