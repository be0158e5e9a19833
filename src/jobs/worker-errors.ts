/**
 * The log line of a BullMQ worker's `error` event. BullMQ reports every failed reconnect as an
 * error: during a Redis outage that is several lines a second per worker, at error level, while
 * the outage itself is logged once by the command connection ("redis connection lost"). A
 * connection error is logged once (warn) until the worker's connection is ready again; any
 * other error is logged each time.
 */
import { isRedisFull, isSocketError } from "../errors.js";
import type { Logger } from "../log.js";

/** ioredis's own words for a command on a connection that is not up. */
const NOT_CONNECTED = /Connection is closed|Stream isn't writeable|max retries per request/i;

export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return isSocketError((err as { code?: unknown }).code) || NOT_CONNECTED.test(err.message);
}

/** The `error` listener for a worker on `connection`. */
export function workerErrorLog(
  logger: Logger,
  connection: { on(event: "ready", listener: () => void): unknown },
  msg: string,
): (err: Error) => void {
  let quiet = false;
  connection.on("ready", () => {
    quiet = false;
  });
  return (err) => {
    if (!isConnectionError(err)) {
      logger.error({ err }, msg);
      return;
    }
    if (quiet) return;
    quiet = true;
    logger.warn({ err: err.message }, `${msg}: redis unreachable (not logged again until it is back)`);
  };
}

/** How often a paused worker tries a write to see whether Redis has room again. */
const PROBE_EVERY_MS = 1_000;
/** How often a worker still paused says so again. */
const LOG_FULL_EVERY_MS = 60_000;

export interface PauseWhileFullOptions {
  logger: Logger;
  /** A small write (an expiring key): refused OOM while Redis is full. */
  probe: () => Promise<unknown>;
  /** Aborted when the worker closes: it is not resumed then. */
  closing: AbortSignal;
  /** Names the worker in the log lines. */
  name: string;
  probeEveryMs?: number;
  logEveryMs?: number;
}

/**
 * The `error` listener part for a full Redis (OOM). BullMQ's worker asks for its next job again at
 * once after an error that is not a connection error: with Redis full, thousands of refused
 * scripts (and `error` events) a second, one core busy for as long as it lasts. The worker is
 * paused instead (the jobs it runs carry on), a small write tried every second, and resumed once
 * one goes through. Logged when it starts, every minute meanwhile, and when it ends. Returns
 * whether it took the error (an OOM); the caller logs any other.
 */
export function pauseWhileRedisFull(
  worker: { pause(doNotWaitActive?: boolean): Promise<void>; resume(): unknown },
  opts: PauseWhileFullOptions,
): (err: Error) => boolean {
  let since: number | undefined;
  const every = opts.probeEveryMs ?? PROBE_EVERY_MS;
  const logEvery = opts.logEveryMs ?? LOG_FULL_EVERY_MS;
  const look = async (loggedAt: number): Promise<void> => {
    await new Promise((r) => setTimeout(r, every));
    if (opts.closing.aborted) return;
    try {
      await opts.probe();
    } catch (err) {
      const now = Date.now();
      const again = isRedisFull(err) && now - loggedAt >= logEvery;
      if (again) opts.logger.error({ waitedMs: now - (since ?? now) }, `${opts.name}: redis is still full`);
      return look(again ? now : loggedAt);
    }
    opts.logger.info({ waitedMs: Date.now() - (since ?? Date.now()) }, `${opts.name}: redis has room again`);
    since = undefined;
    void worker.resume();
  };
  return (err) => {
    if (!isRedisFull(err)) return false;
    if (since !== undefined || opts.closing.aborted) return true;
    since = Date.now();
    opts.logger.error(
      { err: err.message },
      `${opts.name}: redis is full (maxmemory reached): no new job is taken until it has room (free memory or raise maxmemory)`,
    );
    void worker.pause(true).catch(() => undefined);
    void look(since);
    return true;
  };
}

/** What watchWorkerErrors needs of the worker's connection: its `ready` event and a small write. */
interface WorkerConnection {
  on(event: "ready", listener: () => void): unknown;
  set(key: string, value: string, px: "PX", ms: number): Promise<unknown>;
}

/**
 * A BullMQ worker's `error` events: a full Redis pauses it (pauseWhileRedisFull, probing with an
 * expiring write of `probeKey`), any other error is logged (workerErrorLog with `message`).
 */
export function watchWorkerErrors(
  worker: Parameters<typeof pauseWhileRedisFull>[0] & {
    on(event: "error", l: (err: Error) => void): unknown;
  },
  opts: {
    logger: Logger;
    connection: WorkerConnection;
    message: string;
    name: string;
    probeKey: string;
    closing: AbortSignal;
  },
): void {
  const log = workerErrorLog(opts.logger, opts.connection, opts.message);
  const full = pauseWhileRedisFull(worker, {
    logger: opts.logger,
    probe: () => opts.connection.set(opts.probeKey, "1", "PX", 1000),
    closing: opts.closing,
    name: opts.name,
  });
  worker.on("error", (err) => full(err) || log(err));
}
