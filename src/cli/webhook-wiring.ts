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
import { requeuePendingDeliveries } from "../service/webhooks/record-events.js";

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

/** Queues what an earlier process left pending, then delivers; returns the stop function. */
export async function startWebhookDelivery(
  deps: ServiceDeps & { webhooks: WebhookRuntime },
  connection: Redis,
  config: Config,
): Promise<(force?: boolean) => Promise<void>> {
  const requeued = await requeuePendingDeliveries(deps).catch((err: unknown) => {
    deps.logger.warn({ err }, "re-queueing pending webhook deliveries failed");
    return 0;
  });
  if (requeued > 0) deps.logger.info({ requeued }, "pending webhook deliveries queued again");
  const worker = startWebhookWorker(deps, connection, {
    prefix: config.QUEUE_PREFIX,
    closePatienceMs: config.QUEUE_CLOSE_PATIENCE_MS,
  });
  return (force) => worker.close(force);
}
