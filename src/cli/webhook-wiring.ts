/**
 * Composition of tenants' webhooks (kept apart from serve.ts): the runtime every process gets
 * (API: configure; any process: record deliveries), and the delivery worker of worker processes.
 */
import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import { BullWebhookQueue, startWebhookWorker } from "../jobs/webhook-queue.js";
import { egressClient } from "../net/egress-fetch.js";
import type { EgressPolicy } from "../net/egress-policy.js";
import type { ServiceDeps, WebhookRuntime } from "../service/ports.js";
import type { SecretBox } from "../service/secret-box.js";
import {
  type DeliveryReconcileOptions,
  reconcileDeliveries,
} from "../service/webhooks/reconcile-deliveries.js";
import { requeuePendingDeliveries } from "../service/webhooks/record-events.js";

/** A status younger than this is left to its live publish (a Redis round trip, a held read's 25 ms). */
const RECONCILE_SETTLE_MS = 5000;
/** Jobs recorded per tenant per reconcile pass. */
const RECONCILE_BATCH = 200;

export function createWebhookRuntime(
  connection: Redis,
  config: Config,
  egress: EgressPolicy,
  secrets: SecretBox,
): WebhookRuntime & { close(): Promise<void> } {
  const queue = new BullWebhookQueue(connection, {
    prefix: config.QUEUE_PREFIX,
    attempts: config.WEBHOOK_ATTEMPTS,
    backoffMs: config.WEBHOOK_BACKOFF_MS,
  });
  const http = egressClient(egress);
  return {
    queue,
    secrets,
    egress,
    http,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    async close() {
      await queue.queue.close();
      http.close();
    },
  };
}

/**
 * Queues what an earlier process left pending, writes what one left unwritten (now, and every
 * WEBHOOK_RECONCILE_INTERVAL_MS on the host that gets `lease`), then delivers; returns the stop
 * function.
 */
export async function startWebhookDelivery(
  deps: ServiceDeps & { webhooks: WebhookRuntime },
  connection: Redis,
  config: Config,
  lease: () => Promise<boolean>,
): Promise<(force?: boolean) => Promise<void>> {
  const requeued = await requeuePendingDeliveries(deps).catch((err: unknown) => {
    deps.logger.warn({ err }, "re-queueing pending webhook deliveries failed");
    return 0;
  });
  if (requeued > 0) deps.logger.info({ requeued }, "pending webhook deliveries queued again");
  const stopReconcile = startDeliveryReconcile(deps, config.WEBHOOK_RECONCILE_INTERVAL_MS, lease, {
    windowMs: config.WEBHOOK_RECONCILE_WINDOW_MS,
    settleMs: RECONCILE_SETTLE_MS,
    batch: RECONCILE_BATCH,
  });
  const worker = startWebhookWorker(deps, connection, {
    prefix: config.QUEUE_PREFIX,
    closePatienceMs: config.QUEUE_CLOSE_PATIENCE_MS,
  });
  return async (force) => {
    await stopReconcile();
    await worker.close(force);
  };
}

/**
 * A reconcile pass now (this process may follow one that stopped on this host), then every
 * `intervalMs` on one host of all (the one that gets `lease`: a pass costs ~2 µs per job of a
 * webhook's tenant in the window); never two at once here. Returns the stop function.
 */
function startDeliveryReconcile(
  deps: ServiceDeps & { webhooks: WebhookRuntime },
  intervalMs: number,
  lease: () => Promise<boolean>,
  opts: DeliveryReconcileOptions,
): () => Promise<void> {
  let current: Promise<unknown> | undefined;
  const stop = new AbortController();
  // A pass still running when the next is due: that one is skipped, not queued behind it.
  const pass = (leased: () => Promise<boolean>) => {
    current ??= leased()
      .then((mine) => (mine ? reconcileDeliveries(deps, { ...opts, signal: stop.signal }) : 0))
      .catch((err: unknown) => {
        deps.logger.warn({ err }, "reconciling webhook deliveries failed; the next pass tries again");
      })
      .finally(() => {
        current = undefined;
      });
  };
  pass(async () => true);
  const timer = setInterval(() => pass(lease), intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    stop.abort();
    await current;
  };
}
