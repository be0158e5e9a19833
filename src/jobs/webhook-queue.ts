/**
 * The BullMQ side of webhook deliveries: the `WebhookQueue` port (one `deliver-webhook` job per
 * delivery, its id the delivery id) and the worker that runs `deliverWebhook`. BullMQ's retries
 * with exponential backoff make delivery at-least-once; the delivery row keeps the log.
 */
import { type Job, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { ServiceDeps, WebhookQueue, WebhookRuntime } from "../service/ports.js";
import { deliverWebhook } from "../service/webhooks/deliver.js";
import { closeWorker } from "./bull-close.js";
import { bullPrefix, DeliverWebhook, WEBHOOKS_QUEUE } from "./catalog.js";
import { watchWorkerErrors } from "./worker-errors.js";

export interface WebhookQueueOptions {
  prefix: string;
  attempts: number;
  backoffMs: number;
}

export class BullWebhookQueue implements WebhookQueue {
  readonly queue: Queue<DeliverWebhook>;

  constructor(
    connection: Redis,
    private readonly opts: WebhookQueueOptions,
  ) {
    this.queue = new Queue<DeliverWebhook>(WEBHOOKS_QUEUE, { connection, prefix: bullPrefix(opts.prefix) });
    // Connection errors are logged once by the connection's owner.
    this.queue.on("error", () => {});
  }

  async enqueue(deliveryId: string): Promise<void> {
    await this.queue.add(
      "deliver-webhook",
      { deliveryId },
      {
        jobId: deliveryId,
        attempts: this.opts.attempts,
        backoff: { type: "exponential", delay: this.opts.backoffMs },
        removeOnComplete: true,
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    );
  }
}

/** Runs deliveries (a few at once: each waits on a remote receiver). */
export function startWebhookWorker(
  deps: Pick<ServiceDeps, "db" | "logger"> & { webhooks: WebhookRuntime },
  connection: Redis,
  opts: { prefix: string; concurrency?: number; closePatienceMs?: number },
) {
  const process = async (bjob: Job<DeliverWebhook>) => {
    const { deliveryId } = DeliverWebhook.parse(bjob.data);
    const last = bjob.attemptsMade + 1 >= (bjob.opts.attempts ?? 1);
    const outcome = await deliverWebhook(deps, deliveryId, { last });
    // Thrown, so BullMQ schedules the next attempt after its backoff.
    if (outcome === "retry") throw new Error(`webhook delivery ${deliveryId} failed; retrying`);
  };
  const worker = new Worker<DeliverWebhook>(WEBHOOKS_QUEUE, process, {
    connection,
    prefix: bullPrefix(opts.prefix),
    concurrency: opts.concurrency ?? 8,
  });
  const closing = new AbortController();
  watchWorkerErrors(worker, {
    logger: deps.logger,
    connection,
    message: "webhook worker error",
    name: "webhook worker",
    probeKey: `${bullPrefix(opts.prefix)}:room-probe`,
    closing: closing.signal,
  });
  // A delivery cut off by a stop is delivered again (at least once): no job of ours to wait for.
  const watch = { connection, busy: () => false, logger: deps.logger, idlePatienceMs: opts.closePatienceMs };
  const close = (force = false) => {
    closing.abort();
    return closeWorker(worker, force, watch);
  };
  return { worker, close };
}
