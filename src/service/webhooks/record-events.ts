/**
 * Turns a job's new status into webhook deliveries: a row per (job, event) the tenant subscribed
 * to, written once (a status published twice adds nothing), then queued by id. A row whose enqueue
 * failed stays `pending` and is queued again when a worker starts (`requeuePendingDeliveries`); a
 * row a stopped process never wrote is written by the reconcile (reconcile-deliveries.ts).
 */
import { eq } from "drizzle-orm";
import { EXPIRY_ACTOR, isTerminal } from "../../contracts/job.js";
import type { WebhookEvent } from "../../contracts/webhook.js";
import { type Db, tablesOf } from "../../db/db.js";
import type { JobRow } from "../../db/rows.js";
import type { Logger } from "../../log.js";
import { toApprovalItem } from "../calls/approvals-inbox.js";
import { toJobView } from "../calls/job-view.js";
import { nowIso } from "../clock.js";
import { newId } from "../ids.js";
import type { WebhookQueue } from "../ports.js";
import { subscribedWebhook } from "./webhook-config.js";

/**
 * The events a job in this state announces, each with how to make its `data` (made only for an
 * event the tenant subscribed to: most tenants have no webhook, and a job's view copies its result).
 */
function eventsFor(row: JobRow): [WebhookEvent, () => unknown][] {
  const job = () => ({ job: toJobView(row) });
  if (row.status === "awaiting_approval") return [["job.awaiting_approval", () => toApprovalItem(row)]];
  if (row.status === "awaiting_external") return [["job.awaiting_external", job]];
  if (!isTerminal(row.status)) return [];
  const out: [WebhookEvent, () => unknown][] = [["job.finished", job]];
  if (row.status === "denied" && row.approvedBy === EXPIRY_ACTOR) out.push(["approval.expired", job]);
  return out;
}

export async function recordWebhookEvents(
  deps: { db: Db; logger: Logger; webhooks?: { queue: WebhookQueue } },
  row: JobRow,
): Promise<void> {
  if (!deps.webhooks) return;
  const events = eventsFor(row);
  if (events.length === 0) return;
  const hook = await subscribedWebhook(deps.db, row.tenantId);
  const { webhookDeliveries } = tablesOf(deps.db);
  if (!hook) return;
  const created: string[] = [];
  for (const [event, data] of events) {
    if (!hook.events.includes(event)) continue;
    const id = newId("whd");
    const createdAt = nowIso();
    const body = JSON.stringify({ id, event, createdAt, tenantId: row.tenantId, data: data() });
    const inserted = await deps.db
      .insert(webhookDeliveries)
      .values({
        id,
        tenantId: row.tenantId,
        event,
        jobId: row.id,
        body,
        url: hook.url,
        status: "pending",
        createdAt,
      })
      .onConflictDoNothing()
      .returning({ id: webhookDeliveries.id });
    if (inserted.length > 0) created.push(id);
  }
  for (const id of created) {
    await deps.webhooks.queue.enqueue(id).catch((err: unknown) => {
      deps.logger.warn(
        { err, deliveryId: id },
        "queueing a webhook delivery failed; a worker start queues it again",
      );
    });
  }
}

/** Queues every delivery still `pending` (BullMQ's job id is the delivery id: no duplicates). */
export async function requeuePendingDeliveries(deps: {
  db: Db;
  webhooks: { queue: WebhookQueue };
}): Promise<number> {
  const { webhookDeliveries } = tablesOf(deps.db);
  const rows = await deps.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, "pending"));
  for (const { id } of rows) await deps.webhooks.queue.enqueue(id);
  return rows.length;
}
