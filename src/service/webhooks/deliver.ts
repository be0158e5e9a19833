/**
 * One delivery attempt: POST the stored body, signed, to the tenant's webhook URL through the
 * egress-checking client. A 2xx delivers it; anything else is recorded (code, error) and retried
 * by the queue with backoff until the last attempt, which marks it `failed`. A refused address is
 * not retried: the policy will refuse it again.
 */
import { eq } from "drizzle-orm";
import { type Db, first, tablesOf } from "../../db/db.js";
import type { Logger } from "../../log.js";
import { EgressRefusedError } from "../../net/egress-policy.js";
import { nowIso } from "../clock.js";
import type { WebhookRuntime } from "../ports.js";
import { signatureHeader } from "./signature.js";
import { findWebhook, signingSecrets } from "./webhook-config.js";
import { webhookSecretContext } from "./webhook-events.js";

export type DeliveryOutcome = "delivered" | "retry" | "failed" | "skipped";

/** Response bodies are not kept; at most this much of one goes into `lastError`. */
const ERROR_TEXT_MAX = 300;

export async function deliverWebhook(
  deps: { db: Db; logger: Logger; webhooks: WebhookRuntime },
  deliveryId: string,
  attempt: { last: boolean },
): Promise<DeliveryOutcome> {
  const { webhookDeliveries } = tablesOf(deps.db);
  const row = await first(
    deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).limit(1),
  );
  if (row?.status !== "pending") return "skipped";
  const hook = await findWebhook(deps.db, row.tenantId);
  const now = nowIso();
  const record = async (set: Partial<typeof row>) => {
    await deps.db
      .update(webhookDeliveries)
      .set({ attempts: row.attempts + 1, lastAttemptAt: now, ...set })
      .where(eq(webhookDeliveries.id, deliveryId));
  };
  if (!hook) {
    await record({ status: "failed", lastError: "the tenant's webhook was removed" });
    return "failed";
  }
  const secrets = signingSecrets(hook, (sealed) =>
    deps.webhooks.secrets.open<string>(sealed, webhookSecretContext(row.tenantId)),
  );
  const t = Math.floor(Date.now() / 1000);
  let code: number | null = null;
  let error: string | null = null;
  let refused = false;
  try {
    const res = await deps.webhooks.http.fetch(hook.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Toolshed-Webhooks/1",
        "toolshed-event": row.event,
        "toolshed-delivery": row.id,
        "toolshed-signature": signatureHeader(secrets, row.body, t),
      },
      body: row.body,
      signal: AbortSignal.timeout(deps.webhooks.timeoutMs),
    });
    code = res.status;
    const text = await res.text().catch(() => "");
    if (code < 200 || code > 299) error = `HTTP ${code}${text ? `: ${text.slice(0, ERROR_TEXT_MAX)}` : ""}`;
  } catch (err) {
    refused = err instanceof EgressRefusedError;
    error = err instanceof Error ? describe(err) : String(err);
  }
  if (error === null) {
    await record({
      status: "delivered",
      responseCode: code,
      lastError: null,
      deliveredAt: nowIso(),
      url: hook.url,
    });
    return "delivered";
  }
  const final = attempt.last || refused;
  await record({ status: final ? "failed" : "pending", responseCode: code, lastError: error, url: hook.url });
  deps.logger.info({ deliveryId, tenantId: row.tenantId, error, final }, "webhook delivery attempt failed");
  return final ? "failed" : "retry";
}

/** The error and its cause (Node's fetch errors say little without it). */
function describe(err: Error): string {
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
  return `${err.message}${cause}`.slice(0, ERROR_TEXT_MAX);
}
