/**
 * Closing a BullMQ worker when Redis may be away or just back. Its graceful close sends QUIT,
 * records the jobs that finish and ends its blocking fetch, all over Redis: our worker connections
 * queue commands while Redis is away (they must ride out an outage), and a fetch caught by a
 * restart may never settle, so that close can wait forever and a stop at 3 a.m. hangs until it is
 * killed, before the sandboxes and the database are stopped. The close is waited for while Redis
 * answers and a job of ours still runs (it finishes and is recorded); once Redis is away, or
 * nothing of ours has run for `idlePatienceMs` (QUEUE_CLOSE_PATIENCE_MS), it is left behind and the worker's connections
 * cut. Nothing is lost: the rows are the truth, and the next worker's recovery re-attaches to a
 * job BullMQ still thinks active, or finds it over.
 */
import type { Redis } from "ioredis";
import type { Logger } from "../log.js";

/** How often a waiting close looks at Redis and at what runs. */
const CHECK_MS = 500;
/** How long a close may take with nothing of ours running (BullMQ's own bookkeeping), by default. */
const IDLE_PATIENCE_MS = 10_000;

interface Closable {
  close(force?: boolean): Promise<void>;
  disconnect(): Promise<void>;
  readonly name: string;
}

export interface CloseWatch {
  /** The worker's own command connection. */
  connection: Pick<Redis, "status">;
  /** Whether a job of ours still runs on it (a graceful close waits for those). */
  busy: () => boolean;
  logger: Logger;
  /** How long the close may take with nothing of ours running (default 10 s). */
  idlePatienceMs?: number;
}

/** Closes `worker` (gracefully unless `force`), not waiting for what can no longer come. */
export async function closeWorker(worker: Closable, force: boolean, watch: CloseWatch): Promise<void> {
  const closed = worker.close(force).then(
    () => true,
    () => true,
  );
  let idleMs = 0;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      closed,
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), CHECK_MS);
      }),
    ]);
    clearTimeout(timer);
    if (done) return;
    idleMs = watch.busy() ? 0 : idleMs + CHECK_MS;
    const away = watch.connection.status !== "ready";
    if (away || idleMs >= (watch.idlePatienceMs ?? IDLE_PATIENCE_MS)) {
      watch.logger.warn(
        { queue: worker.name, redis: watch.connection.status },
        away
          ? "redis is away: the queue worker is stopped without its graceful close"
          : "the queue worker's close did not end with nothing running: stopped without it",
      );
      // Not awaited: a connection between reconnect attempts never emits the `end` it waits for.
      worker.disconnect().catch(() => undefined);
      return;
    }
  }
}
