/** `GET /v1/tenants/{tid}/webhooks/deliveries`: every delivery of the tenant, newest first. */
import { eq, type SQL } from "drizzle-orm";
import { type Db, tablesOf } from "../../db/db.js";
import type { WebhookDeliveryRow, WebhookDeliveryStatus } from "../../db/rows.js";
import { ValidationError } from "../../errors.js";
import { type Page, type PageQuery, selectPage } from "../page.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { loadTenant } from "../tenancy/tenants.js";

const STATUSES: readonly WebhookDeliveryStatus[] = ["pending", "delivered", "failed"];

export interface DeliveryView {
  id: string;
  event: string;
  jobId: string;
  url: string;
  /** `pending` while attempts remain, then `delivered` or `failed`. */
  status: WebhookDeliveryStatus;
  attempts: number;
  lastError: string | null;
  responseCode: number | null;
  createdAt: string;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
}

export async function listDeliveries(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
  q: PageQuery & { status?: string; jobId?: string },
): Promise<Page<DeliveryView>> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const { webhookDeliveries } = tablesOf(deps.db);
  const where: (SQL | undefined)[] = [eq(webhookDeliveries.tenantId, tenantId)];
  if (q.status !== undefined) {
    const status = STATUSES.find((s) => s === q.status);
    if (!status) {
      throw new ValidationError("invalid status", [
        { path: "status", message: `one of ${STATUSES.join(", ")} (got ${JSON.stringify(q.status)})` },
      ]);
    }
    where.push(eq(webhookDeliveries.status, status));
  }
  if (q.jobId !== undefined) where.push(eq(webhookDeliveries.jobId, q.jobId));
  return selectPage(deps.db, webhookDeliveries, where, q, toDeliveryView);
}

function toDeliveryView(r: WebhookDeliveryRow): DeliveryView {
  return {
    id: r.id,
    event: r.event,
    jobId: r.jobId,
    url: r.url,
    status: r.status,
    attempts: r.attempts,
    lastError: r.lastError,
    responseCode: r.responseCode,
    createdAt: r.createdAt,
    lastAttemptAt: r.lastAttemptAt,
    deliveredAt: r.deliveredAt,
  };
}
